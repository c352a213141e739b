import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliDecompressSync } from "node:zlib";
import { UnpackSync } from "tar";
import { installedPgliteVersion } from "./pglite-package.ts";

/** Where the clusters shipped with the platform are kept, one per PGlite release. */
const templatesDirectory = fileURLToPath(new URL("../../embedded-cluster/", import.meta.url));

/**
 * The file the cluster made by `version` of PGlite is shipped in: a tar without owners or devices,
 * compressed with Brotli (`make-embedded-cluster.ts` writes it).
 */
export function clusterTemplateFile(version: string): string {
  return join(templatesDirectory, `pglite-${version}.tar.br`);
}

/**
 * How a new data directory's cluster is made: unpacked from the cluster shipped for the installed
 * PGlite, or, when none is shipped for it, by PGlite's initdb.
 */
export type ClusterSource = { kind: "template"; file: string } | { kind: "initdb" };

export function shippedClusterSource(): ClusterSource {
  const version = installedPgliteVersion();
  const file = version === undefined ? undefined : clusterTemplateFile(version);
  return file !== undefined && existsSync(file) ? { kind: "template", file } : { kind: "initdb" };
}

/**
 * Unpacks the cluster in `file` into `directory`, made for it. Once, before the platform serves:
 * synchronously, which took half the time of node-tar's streams for the cluster's thousand files.
 */
export function unpackClusterTemplate(file: string, directory: string): void {
  mkdirSync(directory, { recursive: true, mode: 0o750 });
  new UnpackSync({ cwd: directory, strict: true }).end(brotliDecompressSync(readFileSync(file)));
}
