import { get } from "./get.ts";
import { list } from "./list.ts";

/** The `resources` namespace: one file per procedure. */
export const resourcesRouter = { list, get };
