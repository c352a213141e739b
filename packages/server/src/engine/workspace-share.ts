/** The share of a worker's slots one workspace may hold, unless `WEFT_WORKSPACE_SHARE` says otherwise. */
export const defaultWorkspaceShare = 0.5;

/**
 * Slots of a worker that one workspace may hold at once: at least one, so that every workspace can
 * run. Why a cap that holds even while nobody else waits: a running execution cannot be pre-empted,
 * so a workspace allowed to fill an idle worker would keep a tenant who arrives a second later
 * waiting until its executions end.
 */
export function workspaceSlots(concurrency: number, share: number): number {
  return Math.max(1, Math.floor(concurrency * share));
}
