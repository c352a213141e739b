/**
 * `npm run pack`: compiles @weft/contract, @weft/sdk, @weft/client and @weft/cli to JavaScript with
 * declarations and writes one installable tarball of each to dist/packs. The workspace packages
 * export TypeScript sources, which Node does not strip under node_modules, so each tarball gets a
 * package.json whose exports point at dist. @weft/* packages are never fetched from the registry:
 * a tarball bundles the @weft/* packages it depends on, and the CLI also carries the SDK's tarball,
 * which `weft init` points a new project at.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

interface PackageManifest {
  name: string;
  version: string;
  description?: string;
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  [field: string]: unknown;
}

const root = fileURLToPath(new URL("..", import.meta.url));
const build = join(root, "dist", "build");
const staging = join(root, "dist", "staging");
const packs = join(root, "dist", "packs");

/** The @weft/* packages each one bundles, in the order they are packed. */
const packages = {
  contract: [],
  sdk: ["contract"],
  client: ["contract"],
  cli: ["contract", "sdk", "client"],
} as const satisfies Record<string, readonly string[]>;
type PackageDirectory = keyof typeof packages;

const descriptions: Record<PackageDirectory, string> = {
  contract: "The Weft platform's RPC contract and manifest schema.",
  sdk: "Define Weft workflows, forms and webhooks in weft.config.ts.",
  client: "A typed client of the Weft platform's RPC API.",
  cli: "The weft command: create, deploy and operate Weft projects.",
};

function readManifest(directory: PackageDirectory): PackageManifest {
  return JSON.parse(readFileSync(join(root, "packages", directory, "package.json"), "utf8")) as PackageManifest;
}

const bundledName = (directory: PackageDirectory) => `@weft/${directory}`;

/** The package.json that goes into the tarball: exports at dist, no workspace-only fields. */
function packedManifest(directory: PackageDirectory): PackageManifest {
  const { name, version, type, sideEffects, bin, dependencies = {} } = readManifest(directory);
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
    exports: { ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } },
    files: ["dist", ...(directory === "cli" ? ["sdk"] : [])],
    engines: { node: ">=20.6" },
    dependencies: { ...Object.fromEntries(bundled.map((name) => [name, version])), ...registryDependencies },
    ...(bundled.length === 0 ? {} : { bundleDependencies: bundled }),
  };
}

function stagePackage(directory: PackageDirectory, into: string): void {
  mkdirSync(into, { recursive: true });
  cpSync(join(build, directory, "src"), join(into, "dist"), { recursive: true });
  writeFileSync(join(into, "package.json"), `${JSON.stringify(packedManifest(directory), null, 2)}\n`);
}

function npmPack(directory: string, destination: string): string {
  const output = execFileSync("npm", ["pack", "--json", "--pack-destination", destination], {
    cwd: directory,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [packed] = JSON.parse(output) as { filename: string }[];
  if (packed === undefined) throw new Error(`npm pack wrote nothing for ${directory}`);
  return join(destination, packed.filename);
}

for (const directory of [build, staging, packs]) rmSync(directory, { recursive: true, force: true });
execFileSync("npx", ["tsc", "-p", join(root, "pack", "tsconfig.json")], { cwd: root, stdio: "inherit" });
mkdirSync(packs, { recursive: true });
for (const directory of Object.keys(packages) as PackageDirectory[]) {
  const into = join(staging, directory);
  stagePackage(directory, into);
  for (const inner of packages[directory]) stagePackage(inner, join(into, "node_modules", "@weft", inner));
  if (directory === "cli") {
    const sdkDirectory = join(into, "sdk");
    mkdirSync(sdkDirectory);
    cpSync(npmPack(join(staging, "sdk"), packs), join(sdkDirectory, "weft-sdk.tgz"));
  }
  console.log(npmPack(into, packs));
}
rmSync(staging, { recursive: true, force: true });
rmSync(build, { recursive: true, force: true });
