import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * Hands back to the system the memory start-up needed and a serving process does not: loading the
 * server's modules and opening the database allocate several times what stays live, and V8 grows
 * its young generation to the most it allows for it. V8 would give that back once it saw the
 * allocation rate fall, but it measures that rate only at a collection, and a process at rest runs
 * none; so it is one collection that reduces memory (V8's "last resort" one), once start-up is over.
 * Under load the young generation grows again as far as the load needs it.
 *
 * V8 offers that collection to JavaScript only through its `gc` extension, which a context made after
 * `--expose-gc` is set holds; the flag is cleared again at once, so no later context sees it.
 */
export function releaseStartUpMemory(): void {
  setFlagsFromString("--expose-gc");
  let gc: NodeJS.GCFunction;
  try {
    gc = runInNewContext("gc") as NodeJS.GCFunction;
  } finally {
    setFlagsFromString("--no-expose-gc");
  }
  gc({ type: "major", execution: "sync", flavor: "last-resort" });
}
