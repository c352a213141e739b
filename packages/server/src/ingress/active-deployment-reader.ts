import DataLoader from "dataloader";
import { inArray } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { activeDeployments } from "../db/schema/index.ts";
import type { ActiveDeploymentChanges } from "../deployments/active-deployment-changes.ts";
import type { Clock } from "../shared/clock.ts";
import { createExpiringMap } from "../shared/expiring-map.ts";

/** Reads which deployment of a project is active (undefined: none). */
export type ActiveDeploymentReader = (projectId: string) => Promise<string | undefined>;

/**
 * How long a cached answer is trusted without news of a change: the bound on serving a replaced
 * deployment should an announcement be missed (say, while the LISTEN connection was being re-opened).
 */
export const activeDeploymentTtlMs = 1000;

const defaultMaxEntries = 10_000;

/**
 * Which deployment is active, read once per project rather than once per submission: on the
 * embedded database every read waited for the group commit in progress, which doubled the latency
 * of a webhook (see docs/decisions/0024-ingress-caches-the-active-deployment.md). Announced
 * changes drop a project's entry at once: this process's own as its services commit them, other
 * processes' through the database; without news, an entry lives `ttlMs`. Reads that miss and
 * arrive in the same turn of the event loop share one query.
 */
export function createActiveDeploymentReader(deps: {
  db: Database;
  clock: Clock;
  changes: ActiveDeploymentChanges;
  ttlMs?: number;
  maxEntries?: number;
}): ActiveDeploymentReader {
  const ttlMs = deps.ttlMs ?? activeDeploymentTtlMs;
  const maxEntries = deps.maxEntries ?? defaultMaxEntries;
  const entries = createExpiringMap<string, { deploymentId: string | undefined }>(maxEntries);
  // Counts announced changes: a read during which one arrived (for any project, so that nothing
  // per project outlives its entry) must not be cached.
  let changeCount = 0;
  deps.changes.subscribe((projectId) => {
    entries.delete(projectId);
    changeCount += 1;
  });
  async function readActive(projectIds: readonly string[]): Promise<(string | undefined)[]> {
    const rows = await deps.db
      .select({ projectId: activeDeployments.projectId, deploymentId: activeDeployments.deploymentId })
      .from(activeDeployments)
      .where(inArray(activeDeployments.projectId, [...projectIds]));
    const active = new Map(rows.map((row) => [row.projectId, row.deploymentId]));
    return projectIds.map((projectId) => active.get(projectId));
  }
  const loader = new DataLoader<string, string | undefined>(
    async (projectIds) => {
      try {
        return await readActive(projectIds);
      } catch (error) {
        // One id the database refuses must not fail the other tenants' lookups of the same batch:
        // each is read again alone, and only the lookups that fail again get the error.
        if (projectIds.length === 1) throw error;
        return Promise.all(
          projectIds.map((projectId) =>
            readActive([projectId]).then(
              ([deploymentId]) => deploymentId,
              (alone: unknown) => (alone instanceof Error ? alone : new Error(String(alone))),
            ),
          ),
        );
      }
    },
    { cache: false, batchScheduleFn: (dispatch) => setImmediate(dispatch), maxBatchSize: 500 },
  );
  return async (projectId) => {
    const cached = entries.get(projectId, deps.clock.now().getTime());
    if (cached !== undefined) return cached.deploymentId;
    const changesBefore = changeCount;
    const deploymentId = await loader.load(projectId);
    if (changeCount === changesBefore) {
      entries.set(projectId, { deploymentId }, deps.clock.now().getTime() + ttlMs);
    }
    return deploymentId;
  };
}
