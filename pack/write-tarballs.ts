/**
 * `npm run pack`: writes one installable tarball of @weft/contract, @weft/sdk, @weft/client and
 * @weft/cli to dist/packs (how each is made: tarballs.ts). The CLI also carries the SDK's tarball,
 * which `weft init` points a new project at.
 */
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { compile, npmPack, type PackageDirectory, packages, root, stageWithBundled } from "./tarballs.ts";

const build = join(root, "dist", "build");
const staging = join(root, "dist", "staging");
const packs = join(root, "dist", "packs");

for (const directory of [build, staging, packs]) rmSync(directory, { recursive: true, force: true });
compile("tsconfig.json", build);
mkdirSync(packs, { recursive: true });
let sdkTarball: string | undefined;
for (const directory of Object.keys(packages) as PackageDirectory[]) {
  const into = join(staging, directory);
  stageWithBundled(build, directory, into);
  if (directory === "cli") {
    if (sdkTarball === undefined) throw new Error("the SDK is packed before the CLI that carries it");
    mkdirSync(join(into, "sdk"));
    copyFileSync(sdkTarball, join(into, "sdk", "weft-sdk.tgz"));
  }
  const tarball = npmPack(into, packs);
  if (directory === "sdk") sdkTarball = tarball;
  console.log(tarball);
}
rmSync(staging, { recursive: true, force: true });
rmSync(build, { recursive: true, force: true });
