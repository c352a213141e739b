import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Manifest } from "@weft/contract";
import { buildManifest, ManifestError, type WeftConfig } from "@weft/sdk";
import { build, type Plugin } from "esbuild";
import { CliError } from "../errors.ts";
import { checkLoadsInSandbox } from "./sandbox-load-check.ts";

export interface LoadedConfig {
  path: string;
  config: WeftConfig;
  manifest: Manifest;
  /** The ESM bundle a deployment uploads: weft.config.ts and everything it imports, in one file. */
  bundle: string;
  /** The files of the project's directory in the bundle (absolute; installed packages left out): what `weft dev` watches. */
  sources: string[];
}

export interface ConfigBundle {
  text: string;
  sources: string[];
}

/**
 * Packages a project may import without installing them: the CLI brings its own copies, so a fresh
 * project deploys before (or without) `npm install`.
 */
const providedPackages = ["@weft/sdk", "zod"];

function providedByCli(): Plugin {
  const filter = new RegExp(`^(${providedPackages.map((name) => name.replace(/[/.]/g, "\\$&")).join("|")})(/.*)?$`);
  return {
    name: "weft-provided-packages",
    setup(build) {
      build.onResolve({ filter }, async (args) => {
        if (args.pluginData === "fallback") return undefined;
        const own = await build.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: "fallback",
        });
        if (own.errors.length === 0) return { path: own.path, external: own.external, sideEffects: own.sideEffects };
        return { path: fileURLToPath(import.meta.resolve(args.path)) };
      });
    },
  };
}

export async function bundleConfig(path: string): Promise<ConfigBundle> {
  try {
    const result = await build({
      entryPoints: [path],
      absWorkingDir: dirname(path),
      bundle: true,
      write: false,
      format: "esm",
      platform: "node",
      target: "node22",
      logLevel: "silent",
      metafile: true,
      outfile: "weft.bundle.mjs",
      // The sandbox maps stack frames back to the project's files; the sources themselves stay home.
      sourcemap: "inline",
      sourcesContent: false,
      plugins: [providedByCli()],
      // Packages written in CommonJS call require(); give the ESM bundle one.
      banner: {
        js: 'import { createRequire as __weftCreateRequire } from "node:module";\nconst require = __weftCreateRequire(import.meta.url);',
      },
    });
    const [file] = result.outputFiles;
    if (file === undefined) throw new Error("esbuild produced no output");
    const projectDirectory = dirname(path);
    const sources = Object.keys(result.metafile.inputs)
      .map((input) => resolve(projectDirectory, input))
      .filter((file) => file.startsWith(`${projectDirectory}${sep}`) && !file.split(sep).includes("node_modules"));
    return { text: file.text, sources };
  } catch (error) {
    const errors = (
      error as { errors?: { text: string; location: { file: string; line: number; column: number } | null }[] }
    ).errors;
    if (errors === undefined) throw error;
    const lines = errors.map((message) =>
      message.location === null
        ? message.text
        : `${message.location.file}:${message.location.line}:${message.location.column}: ${message.text}`,
    );
    throw new CliError(`${basename(path)} could not be bundled:\n  ${lines.join("\n  ")}`, {
      fix: "fix the errors above (and install the packages your config imports) and deploy again",
      code: "bundle_failed",
    });
  }
}

async function evaluateBundle(bundle: string, path: string): Promise<unknown> {
  const directory = mkdtempSync(join(tmpdir(), "weft-config-"));
  const file = join(directory, "weft.config.mjs");
  writeFileSync(file, bundle);
  try {
    await checkLoadsInSandbox(file, basename(path));
    try {
      const module = (await import(pathToFileURL(file).href)) as { default?: unknown };
      return module.default;
    } catch (error) {
      throw new CliError(
        `${basename(path)} threw while it was evaluated: ${(error as Error).message ?? String(error)}`,
        { fix: "fix the error in your config (it runs once on deploy to read the definitions)", code: "config_threw" },
      );
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

function checkShape(value: unknown, file: string): WeftConfig {
  if (typeof value !== "object" || value === null || !Array.isArray((value as { workflows?: unknown }).workflows)) {
    throw new CliError(`${file} does not export a configuration`, {
      fix: "end the file with `export default defineConfig({ workflows: [...], forms: [...], webhooks: [...] })`",
      code: "invalid_config",
    });
  }
  const config = value as WeftConfig;
  const problems = config.workflows.flatMap((definition, index) => {
    const name = typeof definition?.name === "string" ? definition.name : String(index);
    return typeof definition?.run === "function"
      ? []
      : [`workflows[${name}]: is not a workflow (define it with workflow({ name, run }) from @weft/sdk)`];
  });
  if (problems.length > 0) throw invalidDefinitions(file, problems);
  return config;
}

function invalidDefinitions(file: string, problems: string[]): CliError {
  return new CliError(
    `${file} has ${problems.length === 1 ? "an invalid definition" : `${problems.length} invalid definitions`}:\n${problems.map((problem) => `  ${file}: ${problem}`).join("\n")}`,
    { fix: "fix the definitions named above and deploy again; nothing was uploaded", code: "invalid_definition" },
  );
}

/**
 * Evaluates a project's `weft.config.ts` the way a deployment will run it (bundled with esbuild),
 * and validates every definition locally, naming the file and the definition of each problem.
 */
export async function loadConfig(path: string): Promise<LoadedConfig> {
  const file = basename(path);
  const { text: bundle, sources } = await bundleConfig(path);
  const config = checkShape(await evaluateBundle(bundle, path), file);
  try {
    return { path, config, manifest: buildManifest(config), bundle, sources };
  } catch (error) {
    if (error instanceof ManifestError) {
      throw invalidDefinitions(
        file,
        error.issues.map((issue) => `${issue.path}: ${issue.message}`),
      );
    }
    if (error instanceof RangeError || error instanceof TypeError) throw invalidDefinitions(file, [error.message]);
    throw error;
  }
}
