import { drainInThisProcess } from "./platform-drain.ts";

/** The process of one drain (`platformDrain`): its arguments say where and how many, its result goes back over IPC. */
const [where, total] = process.argv.slice(2);
const result = await drainInThisProcess(where === "embedded" ? undefined : where, Number(total));
process.send?.(result, () => process.exit(0));
