import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { clusterTemplateFile, packClusterTemplate } from "./src/db/embedded-cluster-template.ts";
import { createEmbeddedCluster } from "./src/db/embedded-initdb.ts";

/**
 * Makes the cluster a new data directory starts from, with the installed PGlite's initdb, and
 * writes it where the platform looks for it. Run after changing PGlite's version: `npm run
 * db:embedded-cluster`, then commit the new file and remove the old one.
 */
const file = clusterTemplateFile();
const work = mkdtempSync(join(tmpdir(), "weft-embedded-cluster-"));
try {
  process.stdout.write("running initdb...\n");
  const cluster = join(work, "pgdata");
  await createEmbeddedCluster(cluster, { kind: "initdb" });
  process.stdout.write("packing (Brotli at its densest takes about 20 s)...\n");
  mkdirSync(dirname(file), { recursive: true });
  await packClusterTemplate(cluster, file);
  process.stdout.write(`wrote ${file} (${statSync(file).size} bytes)\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
