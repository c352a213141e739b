import { createWriteStream, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { constants, createBrotliCompress } from "node:zlib";
import { create as createTar } from "tar";
import { clusterTemplateFile } from "./src/db/embedded-cluster-template.ts";
import { createEmbeddedCluster } from "./src/db/embedded-initdb.ts";
import { installedPgliteVersion } from "./src/db/pglite-package.ts";

/**
 * Makes the cluster a new data directory starts from, with the installed PGlite's initdb, and
 * writes it where the platform looks for it: a tar without owners or devices, compressed with
 * Brotli at its densest (a new cluster's 40 MB of files, mostly empty pages, take about 1.3 MB). Run
 * after changing PGlite's version: `npm run db:embedded-cluster`, then commit the new file and
 * remove the old one.
 */
const version = installedPgliteVersion();
if (version === undefined) throw new Error("@electric-sql/pglite's package.json names no version");
const file = clusterTemplateFile(version);
// Written beside the file and renamed over it only once whole: the platform unpacks any file it finds.
const packed = `${file}.partial`;
const work = mkdtempSync(join(tmpdir(), "weft-embedded-cluster-"));
try {
  process.stdout.write(`running PGlite ${version}'s initdb...\n`);
  const cluster = join(work, "pgdata");
  await createEmbeddedCluster(cluster, { kind: "initdb" });
  process.stdout.write("packing (Brotli at its densest takes about 20 s)...\n");
  mkdirSync(dirname(file), { recursive: true });
  const brotli = createBrotliCompress({
    params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_LGWIN]: 24 },
  });
  await pipeline(createTar({ cwd: cluster, portable: true }, readdirSync(cluster)), brotli, createWriteStream(packed));
  renameSync(packed, file);
  process.stdout.write(`wrote ${file} (${statSync(file).size} bytes)\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
  rmSync(packed, { force: true });
}
