import { get } from "./get.ts";
import { list } from "./list.ts";
import { revoke } from "./revoke.ts";
import { revokeAll } from "./revoke-all.ts";

/** The `agents` namespace: one file per procedure. */
export const agentsRouter = { list, get, revoke, revokeAll };
