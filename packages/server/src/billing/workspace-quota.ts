import type { Plan } from "@weft/contract";
import { count, eq } from "drizzle-orm";
import type { Transaction } from "../db/database.ts";
import { accounts, workspaces } from "../db/schema/index.ts";
import { type PlanCatalogue, planOf, quotaUnits } from "./plans.ts";
import type { QuotaExceeded } from "./quota-gate.ts";

/**
 * The workspaces an account may pay for when its plan says nothing: more than a person uses, and
 * few enough that a worker's share, which holds per account, cannot be multiplied by creating them.
 */
export const defaultWorkspacesPerAccount = 10;

/** The workspaces an account on `plan` may pay for, its personal one included. */
export function workspacesAllowed(plan: Plan): number {
  return plan.workspaces ?? defaultWorkspacesPerAccount;
}

/**
 * Whether the account may pay for one more workspace: its plan is its personal workspace's. Locks
 * the account's row for the rest of the caller's transaction, so that concurrent creations count
 * one after the other.
 */
export async function workspaceQuotaExceeded(
  tx: Transaction,
  catalogue: PlanCatalogue,
  accountId: string,
): Promise<QuotaExceeded | undefined> {
  await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("update");
  const [personal] = await tx
    .select({ id: workspaces.id, plan: workspaces.plan })
    .from(workspaces)
    .where(eq(workspaces.personalAccountId, accountId));
  if (personal === undefined) return undefined;
  const plan = planOf(catalogue, personal.plan);
  const limit = workspacesAllowed(plan);
  const [row] = await tx.select({ n: count() }).from(workspaces).where(eq(workspaces.billingAccountId, accountId));
  const used = row?.n ?? 0;
  if (used < limit) return undefined;
  const quota = { name: "workspaces" as const, limit, used, resetsAt: null };
  return {
    quota,
    message: `The plan "${plan.name}" of your personal workspace (${personal.id}) allows ${limit} ${quotaUnits.workspaces} (quota workspaces) and ${used} are used: the operator raises it with \`weft server set-plan ${personal.id} <plan>\`.`,
  };
}
