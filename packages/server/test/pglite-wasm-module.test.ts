import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { pgliteBinaryPath } from "../src/db/pglite-package.ts";
import { findParserFunction } from "../src/db/pglite-wasm-module.ts";
import { functionsNaming, readWasmLayout, signedLeb128, unsignedLeb128 } from "../src/db/wasm-binary.ts";

const pgliteBinary = readFileSync(pgliteBinaryPath());
const parseManyStatements = fileURLToPath(new URL("./fixtures/parse-many-statements.ts", import.meta.url));

describe("PGlite's module as the platform compiles it", () => {
  it("finds PostgreSQL's grammar function: the one function that names base_yyparse, the largest but one", () => {
    const layout = readWasmLayout(pgliteBinary);
    const parser = findParserFunction(pgliteBinary);
    expect(parser?.index).toBeDefined();
    const size = (index: number) => {
      const [start, end] = layout.bodies[index - layout.importedFunctions] ?? [0, 0];
      return end - start;
    };
    const larger = layout.bodies.filter(([start, end]) => end - start > size(parser?.index ?? -1));
    expect(larger).toHaveLength(1);
    expect(functionsNaming(pgliteBinary, layout, "base_yyparse")).toEqual([parser?.index]);
  });

  it("leaves a binary it cannot read, or with no such function, as it is", () => {
    expect(findParserFunction(Buffer.from("not WebAssembly at all"))).toBeUndefined();
    expect(findParserFunction(pgliteBinary.subarray(0, 1000))).toBeUndefined();
    expect(findParserFunction(Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]))).toBeUndefined();
  });

  it("keeps the parser at the baseline tier through thousands of statements and a memory-reducing " +
    "collection, while PostgreSQL's other hot functions are optimized", async () => {
    const parser = findParserFunction(pgliteBinary)?.index;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--trace-wasm-compilation-times", parseManyStatements],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    const compiled = (tier: string) =>
      stdout.split("\n").filter((line) => line.startsWith("Compiled function ") && line.includes(`using ${tier}`));
    const isParser = (line: string) => line.includes(`#${parser} `);
    expect(compiled("Liftoff").filter(isParser).length).toBeGreaterThan(0);
    expect(compiled("TurboFan").filter(isParser)).toEqual([]);
    expect(compiled("TurboFan").length).toBeGreaterThan(20);
    // Optimizing the parser alone takes about 600 MB of compiler memory.
    const peak = Number(/^peak (\d+)$/m.exec(stdout)?.[1]);
    expect(peak).toBeLessThan(600 * 1024 * 1024);
  }, 120_000);
});

describe("LEB128 integers", () => {
  it("encodes as WebAssembly reads them", () => {
    expect([...signedLeb128(0)]).toEqual([0]);
    expect([...signedLeb128(63)]).toEqual([63]);
    expect([...signedLeb128(64)]).toEqual([0xc0, 0]);
    expect([...signedLeb128(-1)]).toEqual([0x7f]);
    expect([...signedLeb128(342_019)]).toEqual([0x83, 0xf0, 0x14]);
    expect([...unsignedLeb128(0)]).toEqual([0]);
    expect([...unsignedLeb128(127)]).toEqual([127]);
    expect([...unsignedLeb128(128)]).toEqual([0x80, 1]);
    expect([...unsignedLeb128(13_725)]).toEqual([0x9d, 0x6b]);
  });
});
