import { createTanstackQueryUtils } from "@orpc/tanstack-query";
import { weft } from "./weft-client.ts";

/**
 * TanStack Query options for every procedure, keyed by its path and input:
 * `useQuery(weftQuery.projects.get.queryOptions({ input: { projectId } }))`. Invalidations take
 * their keys from here too (`weftQuery.agents.list.key()` matches every input), so no page spells a key.
 */
export const weftQuery = createTanstackQueryUtils(weft);
