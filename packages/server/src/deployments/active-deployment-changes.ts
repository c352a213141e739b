import type { DatabaseHandle } from "../db/database.ts";
import { type Announcements, createAnnouncements } from "../shared/announcements.ts";

/**
 * The NOTIFY channel on which a trigger on `active_deployments` (migration 0001) announces, on
 * commit, the id of a project whose active deployment changed: deployed, rolled back or deleted.
 */
export const activeDeploymentsChannel = "weft_active_deployments";

/**
 * Ids of projects whose active deployment changed, heard in this process: from this process's own
 * services right after their commit (so its caches never serve a deployment it has just replaced)
 * and, once `relayActiveDeploymentChanges` runs, from every other process through the database.
 */
export type ActiveDeploymentChanges = Announcements<string>;

export function createActiveDeploymentChanges(): ActiveDeploymentChanges {
  return createAnnouncements<string>();
}

/** The dependency of services that change a project's active deployment. */
export interface AnnouncesActiveDeploymentChanges {
  /**
   * Told after the commit, so this process's ingress stops serving the replaced deployment at once.
   * Absent where nothing in the process caches active deployments.
   */
  activeDeploymentChanges?: ActiveDeploymentChanges;
}

/** Publishes the database's announcements of other processes' changes here; resolves once listening. */
export function relayActiveDeploymentChanges(
  database: DatabaseHandle,
  changes: ActiveDeploymentChanges,
): Promise<() => Promise<void>> {
  return database.listen(activeDeploymentsChannel, (projectId) => changes.publish(projectId));
}
