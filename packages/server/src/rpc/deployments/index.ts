import { activate } from "./activate.ts";
import { create } from "./create.ts";
import { get } from "./get.ts";
import { list } from "./list.ts";

/** The `deployments` namespace: one file per procedure. */
export const deploymentsRouter = { create, activate, list, get };
