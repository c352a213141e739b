import { readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import type { PGliteOptions } from "@electric-sql/pglite";
import { pgliteBinaryPath } from "./pglite-package.ts";
import { functionsNaming, readWasmLayout, unsignedLeb128, type WasmBinaryLayout } from "./wasm-binary.ts";

/**
 * V8's compilation hint for one function: compiled with the module (strategy "eager", the low two
 * bits), at the baseline tier Liftoff (bits 2–3), with Liftoff as its top tier too (bits 4–5).
 */
const eagerBaselineOnly = 2 | (1 << 2) | (1 << 4);

/** The name PostgreSQL's grammar function reports its errors under, which only its code loads. */
const parserFunctionName = "base_yyparse";

/**
 * The binary with a `compilationHints` custom section before its code section that asks for the
 * function `index` to be compiled with the module, at the baseline tier only.
 */
function withParserHint(bytes: Buffer, layout: WasmBinaryLayout, index: number): Buffer {
  const hints = Buffer.alloc(layout.definedFunctions);
  hints[index - layout.importedFunctions] = eagerBaselineOnly;
  const name = Buffer.from("compilationHints");
  const payload = Buffer.concat([unsignedLeb128(name.length), name, unsignedLeb128(hints.length), hints]);
  const section = Buffer.concat([Buffer.from([0]), unsignedLeb128(payload.length), payload]);
  return Buffer.concat([
    bytes.subarray(0, layout.codeSectionOffset),
    section,
    bytes.subarray(layout.codeSectionOffset),
  ]);
}

/** PostgreSQL's grammar function in PGlite's binary, or undefined when it cannot be told apart. */
export function findParserFunction(bytes: Buffer): { layout: WasmBinaryLayout; index: number } | undefined {
  let layout: WasmBinaryLayout;
  try {
    layout = readWasmLayout(bytes);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
  const named = functionsNaming(bytes, layout, parserFunctionName);
  const [index] = named;
  return named.length === 1 && index !== undefined ? { layout, index } : undefined;
}

type PGliteWasmModule = NonNullable<PGliteOptions["pgliteWasmModule"]>;

/** The runtime's WebAssembly compiler, which the TypeScript libraries the project builds with leave undeclared. */
const { Module } = (globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => PGliteWasmModule } })
  .WebAssembly;

let compiled: PGliteWasmModule | undefined;

/**
 * PGlite's WebAssembly module, compiled once for the process, with PostgreSQL's SQL parser kept at
 * V8's baseline tier (Liftoff) for good. Every other function tiers up to TurboFan as it gets hot.
 *
 * The parser is one function of 105 KB whose optimization holds about 600 MB of compiler memory at
 * once, and some ten kilobytes of SQL parsed make it hot: it more than doubled the platform's peak
 * on every start. With the statements the platform repeats prepared once (`withStatementCache`),
 * little is parsed after start-up, so the optimized parser saves little CPU.
 *
 * V8 decides whether a function's Liftoff code counts towards tiering up when it compiles that code
 * (`--wasm-tier-up-filter`, read then). So the parser is compiled with the module (a compilation
 * hint, which V8 reads under `--experimental-wasm-compilation-hints`) while the filter names a
 * function that does not exist, and both flags are set back to V8's defaults before anything else
 * is compiled: the rest of the module compiles lazily, on first use, with V8's ordinary tiering.
 * V8 would drop all Liftoff code under memory pressure (at a last-resort collection, near the heap's
 * limit, with its code space nearly full) and compile it again on the next call, the parser then
 * with its tier-up: the process keeps its Liftoff code from then on (`--no-flush-liftoff-code`,
 * about 10 MB here). If the parser cannot be found (another PGlite build), or the hinted module does
 * not compile, the module is compiled as it is.
 */
export function pgliteWasmModule(): PGliteWasmModule {
  if (compiled !== undefined) return compiled;
  const bytes = readFileSync(pgliteBinaryPath());
  const parser = findParserFunction(bytes);
  compiled = (parser === undefined ? undefined : compiledWithParserAtBaseline(bytes, parser)) ?? new Module(bytes);
  return compiled;
}

function compiledWithParserAtBaseline(
  bytes: Buffer,
  parser: { layout: WasmBinaryLayout; index: number },
): PGliteWasmModule | undefined {
  const hinted = withParserHint(bytes, parser.layout, parser.index);
  setFlagsFromString("--experimental-wasm-compilation-hints");
  const noFunction = parser.layout.importedFunctions + parser.layout.definedFunctions;
  setFlagsFromString(`--wasm-tier-up-filter=${noFunction}`);
  try {
    const module = new Module(hinted);
    setFlagsFromString("--no-flush-liftoff-code");
    return module;
  } catch {
    return undefined;
  } finally {
    setFlagsFromString("--wasm-tier-up-filter=-1");
    setFlagsFromString("--no-experimental-wasm-compilation-hints");
  }
}
