import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** Where esbuild resolves the source's imports from: this package, which depends on `@weft/sdk`. */
const packageRoot = fileURLToPath(new URL("..", import.meta.url));

/**
 * Bundles a `weft.config.ts` source the way `weft deploy` does: one ESM file whose default export
 * is the `defineConfig(...)` object, with `@weft/sdk` and everything else inlined.
 */
export async function bundleConfig(source: string): Promise<string> {
  const result = await build({
    stdin: { contents: source, loader: "ts", resolveDir: packageRoot, sourcefile: "weft.config.ts" },
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node22",
    write: false,
    logLevel: "silent",
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error("esbuild produced no output");
  return output.text;
}
