import { PGlite } from "@electric-sql/pglite";

/**
 * The process `createEmbeddedCluster` starts: PGlite's initdb in the directory it is given, and
 * nothing else, so that all it needed goes back to the system when it exits.
 */
const [directory] = process.argv.slice(2);
if (directory === undefined) {
  process.stderr.write("usage: node embedded-initdb-process.ts <directory>\n");
  process.exitCode = 2;
} else {
  await (await PGlite.create(directory)).close();
}
