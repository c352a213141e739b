import { get } from "./get.ts";
import { list } from "./list.ts";

/** The `traces` namespace: one file per procedure. */
export const tracesRouter = { list, get };
