import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { brotliDecompressSync, constants, createBrotliCompress } from "node:zlib";
import { create as createTar, UnpackSync } from "tar";

/** Where the clusters shipped with the platform are kept, one per PGlite release. */
const templatesDirectory = fileURLToPath(new URL("../../embedded-cluster/", import.meta.url));

/** The PGlite release installed beside the platform: a cluster must come from its PostgreSQL. */
export function installedPgliteVersion(): string {
  const binary = createRequire(import.meta.url).resolve("@electric-sql/pglite/pglite.wasm");
  const manifest: unknown = JSON.parse(readFileSync(join(dirname(binary), "..", "package.json"), "utf8"));
  const version = (manifest as { version?: unknown }).version;
  if (typeof version !== "string") throw new Error("@electric-sql/pglite's package.json names no version");
  return version;
}

/** The file a cluster made by `version` of PGlite is shipped in. */
export function clusterTemplateFile(version = installedPgliteVersion()): string {
  return join(templatesDirectory, `pglite-${version}.tar.br`);
}

/**
 * How a new data directory's cluster is made: unpacked from the cluster shipped for the installed
 * PGlite, or, when none is shipped for it, by PGlite's initdb.
 */
export type ClusterSource = { kind: "template"; file: string } | { kind: "initdb" };

export function shippedClusterSource(): ClusterSource {
  const file = clusterTemplateFile();
  return existsSync(file) ? { kind: "template", file } : { kind: "initdb" };
}

/**
 * Unpacks the cluster in `file` into `directory`, made for it. Once, before the platform serves:
 * synchronously, which took half the time of node-tar's streams for the cluster's thousand files.
 */
export function unpackClusterTemplate(file: string, directory: string): void {
  mkdirSync(directory, { recursive: true, mode: 0o750 });
  new UnpackSync({ cwd: directory, strict: true }).end(brotliDecompressSync(readFileSync(file)));
}

/**
 * Packs the cluster in `directory` into `file`: a tar without owners or devices, compressed with
 * Brotli at its densest (a new cluster's 40 MB of files, mostly empty pages, take about 1.3 MB).
 */
export async function packClusterTemplate(directory: string, file: string): Promise<void> {
  const tar = createTar({ cwd: directory, portable: true }, readdirSync(directory));
  const brotli = createBrotliCompress({
    params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_LGWIN]: 24 },
  });
  await pipeline(tar, brotli, createWriteStream(file));
}
