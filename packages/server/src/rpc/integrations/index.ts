import { create } from "./create.ts";
import { remove } from "./delete.ts";
import { get } from "./get.ts";
import { list } from "./list.ts";
import { update } from "./update.ts";

/** The `integrations` namespace: one file per procedure. */
export const integrationsRouter = { list, get, create, update, delete: remove };
