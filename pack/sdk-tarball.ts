/**
 * The SDK's tarball for `weft init` run from this repository, where no packed SDK ships beside the
 * CLI: built from the sources on first use (as `npm run pack` builds it) and kept in
 * node_modules/.cache/weft-sdk under a name that changes with those sources, so a project made
 * earlier still installs the SDK it was made with.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { compile, npmPack, readManifest, root, stageWithBundled } from "./tarballs.ts";

export const sdkCache = join(root, "node_modules", ".cache", "weft-sdk");

/** Everything the SDK's tarball is made from: its sources and contract's, and how they are packed. */
function sourceFiles(): string[] {
  const trees = ["packages/contract/src", "packages/sdk/src"].flatMap((tree) =>
    readdirSync(join(root, tree), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(root, join(entry.parentPath, entry.name))),
  );
  const single = [
    "packages/contract/package.json",
    "packages/sdk/package.json",
    "tsconfig.base.json",
    "pack/tsconfig.json",
    "pack/tsconfig.sdk.json",
    "pack/tarballs.ts",
  ];
  return [...trees, ...single].sort();
}

function sourceDigest(): string {
  const hash = createHash("sha256");
  for (const file of sourceFiles())
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update("\0");
  return hash.digest("hex").slice(0, 16);
}

/** The path of the SDK's tarball built from the current sources, building it when it is not cached. */
export function sdkTarball(): string {
  const target = join(sdkCache, `weft-sdk-${readManifest("sdk").version}-${sourceDigest()}.tgz`);
  if (existsSync(target)) return target;
  mkdirSync(sdkCache, { recursive: true });
  const work = mkdtempSync(join(sdkCache, "build-"));
  try {
    const build = join(work, "build");
    compile("tsconfig.sdk.json", build);
    stageWithBundled(build, "sdk", join(work, "sdk"));
    // A rename, so that another `weft init` building at the same time finds a whole file or none.
    renameSync(npmPack(join(work, "sdk"), work), target);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return target;
}
