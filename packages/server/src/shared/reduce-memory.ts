import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * Hands back to the system the memory V8 holds beyond what is live, with one collection that
 * reduces memory (V8's "last resort" one). Start-up allocates several times what stays live (the
 * server's modules, opening the database), and V8 grows its young generation to the most it allows
 * for it; it would give that back once it saw the allocation rate fall, but it measures that rate
 * only at a collection, and a process at rest runs none. So the process calls this once start-up is
 * over, and before the embedded database's memory (and a new data directory's files, or its initdb
 * process) joins what start-up left. Under load the young generation grows again as far as the load
 * needs it.
 *
 * V8 offers that collection to JavaScript only through its `gc` extension, which a context made
 * while `--expose-gc` is set holds; the flag is cleared again at once, so no later context sees it.
 */
export function reduceMemory(): void {
  setFlagsFromString("--expose-gc");
  let gc: NodeJS.GCFunction;
  try {
    gc = runInNewContext("gc") as NodeJS.GCFunction;
  } finally {
    setFlagsFromString("--no-expose-gc");
  }
  gc({ type: "major", execution: "sync", flavor: "last-resort" });
}
