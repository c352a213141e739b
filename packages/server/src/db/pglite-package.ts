import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** PGlite's WebAssembly binary, as installed beside the platform. */
export function pgliteBinaryPath(): string {
  return createRequire(import.meta.url).resolve("@electric-sql/pglite/pglite.wasm");
}

/** The installed PGlite's version, from the package.json above its binary; undefined if it names none. */
export function installedPgliteVersion(): string | undefined {
  const manifest: unknown = JSON.parse(readFileSync(join(dirname(pgliteBinaryPath()), "..", "package.json"), "utf8"));
  const version = (manifest as { version?: unknown }).version;
  return typeof version === "string" ? version : undefined;
}
