import { eq } from "drizzle-orm";
import type { Transaction } from "../db/database.ts";
import { workspaces } from "../db/schema/index.ts";
import { countProjects, quotaMessage } from "./month-usage.ts";
import { type PlanCatalogue, planOf } from "./plans.ts";
import type { QuotaExceeded } from "./quota-gate.ts";

/**
 * Whether the workspace's plan has room for one more project. Locks the workspace's row for the
 * rest of the caller's transaction, so that concurrent creations count one after the other.
 */
export async function projectQuotaExceeded(
  tx: Transaction,
  catalogue: PlanCatalogue,
  workspaceId: string,
): Promise<QuotaExceeded | undefined> {
  const [row] = await tx.select({ plan: workspaces.plan }).from(workspaces).where(eq(workspaces.id, workspaceId));
  if (row === undefined) return undefined;
  const plan = planOf(catalogue, row.plan);
  if (plan.projects === undefined) return undefined;
  await tx.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, workspaceId)).for("update");
  const used = await countProjects(tx, workspaceId);
  if (used < plan.projects) return undefined;
  const quota = { name: "projects" as const, limit: plan.projects, used, resetsAt: null };
  return { quota, message: quotaMessage(plan, quota) };
}
