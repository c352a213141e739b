import { list } from "./list.ts";
import { send } from "./send.ts";

/** The `events` namespace: one file per procedure. */
export const eventsRouter = { send, list };
