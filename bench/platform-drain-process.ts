import { drainInThisProcess } from "./platform-drain.ts";

/** The process of one drain (`platformDrain`): its arguments say which database and how many, its result goes back over IPC. */
if (process.send === undefined)
  throw new Error("platform-drain-process.ts runs as a child of the bench (bench/run.ts)");
const send = process.send.bind(process);
const [database, total] = process.argv.slice(2);
const result = await drainInThisProcess(database === "embedded" ? undefined : database, Number(total));
send(result, () => process.exit(0));
