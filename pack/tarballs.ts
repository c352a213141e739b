/**
 * How a workspace package becomes an installable tarball: compiled to JavaScript with declarations,
 * staged with a package.json whose exports point at dist (Node does not strip types under
 * node_modules), with the @weft/* packages it depends on bundled, then packed by `npm pack`.
 * @weft/* packages are never fetched from the registry. Used by `npm run pack` (write-tarballs.ts)
 * and by `weft init` inside this repository (sdk-tarball.ts).
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

interface PackageManifest {
  name: string;
  version: string;
  description?: string;
  bin?: Record<string, string>;
  exports?: Record<string, string>;
  dependencies?: Record<string, string>;
  [field: string]: unknown;
}

type EntryPoint = { types: string; default: string };
type PackedManifest = Omit<PackageManifest, "exports"> & { exports?: Record<string, EntryPoint> };

/**
 * The Node a tarball installs under: the CLI's own code needs import.meta.resolve (20.6). Its
 * prompts library needs util.styleText (20.12), so the CLI loads it only where it is there.
 */
export const packedNodeRange = ">=20.6";

export const root = fileURLToPath(new URL("..", import.meta.url));

/** The @weft/* packages each one bundles, in the order they are packed. */
export const packages = {
  contract: [],
  sdk: ["contract"],
  client: ["contract"],
  cli: ["contract", "sdk", "client"],
} as const satisfies Record<string, readonly string[]>;
export type PackageDirectory = keyof typeof packages;

const descriptions: Record<PackageDirectory, string> = {
  contract: "The Weft platform's RPC contract and manifest schema.",
  sdk: "Define Weft workflows, forms and webhooks in weft.config.ts.",
  client: "A typed client of the Weft platform's RPC API.",
  cli: "The weft command: create, deploy and operate Weft projects.",
};

export function readManifest(directory: PackageDirectory): PackageManifest {
  return JSON.parse(readFileSync(join(root, "packages", directory, "package.json"), "utf8")) as PackageManifest;
}

const bundledName = (directory: PackageDirectory) => `@weft/${directory}`;

/** Each entry point of the workspace package (`./src/x.ts`), as its compiled files in the tarball. */
function packedExports(exports: Record<string, string>): Record<string, EntryPoint> {
  return Object.fromEntries(
    Object.entries(exports).map(([subpath, source]) => {
      const compiled = source.replace(/^\.\/src\//, "./dist/").replace(/\.ts$/, "");
      return [subpath, { types: `${compiled}.d.ts`, default: `${compiled}.js` }];
    }),
  );
}

/** The package.json that goes into the tarball: exports at dist, no workspace-only fields. */
function packedManifest(directory: PackageDirectory): PackedManifest {
  const { name, version, type, sideEffects, bin, exports, dependencies = {} } = readManifest(directory);
  const bundled = packages[directory].map(bundledName);
  // A bundled package's own registry dependencies must be installed beside the bundle.
  const inherited: Record<string, string> = Object.assign(
    {},
    ...packages[directory].map((inner) => readManifest(inner).dependencies ?? {}),
  );
  const registryDependencies = Object.fromEntries(
    Object.entries({ ...inherited, ...dependencies })
      .filter(([dependency]) => !dependency.startsWith("@weft/"))
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  return {
    name,
    version,
    description: descriptions[directory],
    license: "UNLICENSED",
    type,
    ...(sideEffects === undefined ? {} : { sideEffects }),
    ...(bin === undefined ? {} : { bin: { weft: "./dist/bin.js" } }),
    // The CLI is a command with no entry point to import: its package has no exports.
    ...(exports === undefined ? {} : { exports: packedExports(exports) }),
    files: ["dist", ...(directory === "cli" ? ["sdk"] : [])],
    engines: { node: packedNodeRange },
    dependencies: { ...Object.fromEntries(bundled.map((name) => [name, version])), ...registryDependencies },
    ...(bundled.length === 0 ? {} : { bundleDependencies: bundled }),
  };
}

/** Runs a tool, failing with what it printed: tsc reports its errors on stdout, npm on stderr. */
function runTool(file: string, args: string[], cwd: string): string {
  try {
    return execFileSync(file, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(" ")} failed:\n${failed.stdout ?? ""}${failed.stderr ?? ""}`);
  }
}

/** Compiles the packages a tsconfig of this folder includes into `build`, one folder per package. */
export function compile(tsconfig: "tsconfig.json" | "tsconfig.sdk.json", build: string): void {
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  runTool(process.execPath, [tsc, "-p", join(root, "pack", tsconfig), "--outDir", build], root);
}

function stagePackage(build: string, directory: PackageDirectory, into: string): void {
  mkdirSync(into, { recursive: true });
  cpSync(join(build, directory, "src"), join(into, "dist"), { recursive: true });
  writeFileSync(join(into, "package.json"), `${JSON.stringify(packedManifest(directory), null, 2)}\n`);
}

/** Stages a compiled package in `into`, with the @weft/* packages it bundles in its node_modules. */
export function stageWithBundled(build: string, directory: PackageDirectory, into: string): void {
  stagePackage(build, directory, into);
  for (const inner of packages[directory]) stagePackage(build, inner, join(into, "node_modules", "@weft", inner));
}

/** Packs a staged package into `destination`; returns the tarball's path. */
export function npmPack(directory: string, destination: string): string {
  const output = runTool("npm", ["pack", "--json", "--pack-destination", destination], directory);
  const [packed] = JSON.parse(output) as { filename: string }[];
  if (packed === undefined) throw new Error(`npm pack wrote nothing for ${directory}`);
  return join(destination, packed.filename);
}
