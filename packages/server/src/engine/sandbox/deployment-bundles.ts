import { eq, inArray } from "drizzle-orm";
import type { Database } from "../../db/database.ts";
import { activeDeployments, deployments } from "../../db/schema/index.ts";

/** Which of these deployments are the active one of their project. */
export async function activeDeploymentsAmong(db: Database, deploymentIds: string[]): Promise<Set<string>> {
  if (deploymentIds.length === 0) return new Set();
  const rows = await db
    .select({ id: activeDeployments.deploymentId })
    .from(activeDeployments)
    .where(inArray(activeDeployments.deploymentId, deploymentIds));
  return new Set(rows.map((row) => row.id));
}

/** The bundle text of a deployment, for the worker that runs it. */
export async function readDeploymentBundle(db: Database, deploymentId: string): Promise<string> {
  const [row] = await db
    .select({ bundle: deployments.bundle })
    .from(deployments)
    .where(eq(deployments.id, deploymentId));
  // Executions reference their deployment, so a missing one is a broken invariant, not a refusal.
  if (row === undefined) throw new Error(`deployment ${deploymentId} has no stored bundle`);
  return row.bundle;
}
