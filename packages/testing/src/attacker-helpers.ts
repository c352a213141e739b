/**
 * Functions that a hostile workflow's `weft.config.ts` uses to attack what crosses the sandbox's
 * boundary, as source text to put at its top level: the hostile tenant suites and the
 * `neighbours` bench build their attackers from it. It imports `writeSync` and `DatabaseSync`
 * itself, so the source around it must not.
 */
export const attackerHelpers = `
import { writeSync as writeToFd } from "node:fs";
import { DatabaseSync } from "node:sqlite";

const forever = () => new Promise(() => undefined);
/** Writes all of \`bytes\` to the worker's channel (fd 3) as the non-blocking socket takes them. */
function write(bytes) {
  for (let written = 0; written < bytes.length; ) {
    try {
      written += writeToFd(3, bytes, written);
    } catch (error) {
      if (error.code !== "EAGAIN") throw error;
    }
  }
}
/** The header of a channel frame (a marker byte, then the length, big-endian) announcing \`length\` bytes. */
function header(length) {
  const bytes = Buffer.alloc(5);
  bytes[0] = 0xf7;
  bytes.writeUInt32BE(length, 1);
  return bytes;
}
/** Fills \`path\` with 1.5 GB through node:sqlite; the pages a fill before this one freed are written again. */
function fill(path) {
  const db = new DatabaseSync(path);
  db.exec("create table if not exists t (x blob); delete from t");
  const insert = db.prepare("insert into t values (?)");
  const chunk = Buffer.alloc(1024 * 1024, 1);
  for (let i = 0; i < 1536; i += 1) insert.run(chunk);
  return "wrote 1.5 GB";
}
`;
