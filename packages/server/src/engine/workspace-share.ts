/**
 * The share of a worker's slots one workspace may hold, and one account across all the workspaces
 * it pays for, unless `WEFT_WORKSPACE_SHARE` says otherwise.
 */
export const defaultWorkspaceShare = 0.5;

/**
 * Slots of a worker that one workspace may hold at once, and one account across the workspaces it
 * pays for: at least one, so that every workspace can run. Why a cap that holds even while nobody
 * else waits: a running execution cannot be pre-empted, so a workspace allowed to fill an idle
 * worker would keep a tenant who arrives a second later waiting until its executions end. Why per
 * account: anyone may create workspaces, and a cap per workspace alone would be multiplied by them.
 * A workspace's executions are its account's, so the account's cap is the workspace's too.
 */
export function workspaceSlots(concurrency: number, share: number): number {
  return Math.max(1, Math.floor(concurrency * share));
}
