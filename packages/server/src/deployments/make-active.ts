import type { Transaction } from "../db/database.ts";
import { activeDeployments } from "../db/schema/index.ts";

/** Points the project's one active deployment at `deploymentId`, whether or not it had one. */
export async function makeActive(tx: Transaction, projectId: string, deploymentId: string, now: Date): Promise<void> {
  await tx
    .insert(activeDeployments)
    .values({ projectId, deploymentId, activatedAt: now })
    .onConflictDoUpdate({ target: activeDeployments.projectId, set: { deploymentId, activatedAt: now } });
}
