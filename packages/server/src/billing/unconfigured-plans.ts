import { count, notInArray } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { workspaces } from "../db/schema/index.ts";
import type { PlanCatalogue } from "./plans.ts";

export interface UnconfiguredPlan {
  plan: string;
  workspaces: number;
}

/**
 * Plans assigned to workspaces that `WEFT_PLANS` no longer names. Those workspaces are held to the
 * default plan until they are assigned another; the operator is told at start-up rather than
 * finding out from a customer.
 */
export async function findUnconfiguredPlans(db: Database, catalogue: PlanCatalogue): Promise<UnconfiguredPlan[]> {
  // The catalogue always holds at least `unlimited`; a workspace with no plan (null) has the default.
  const rows = await db
    .select({ plan: workspaces.plan, workspaces: count() })
    .from(workspaces)
    .where(
      notInArray(
        workspaces.plan,
        catalogue.plans.map((plan) => plan.name),
      ),
    )
    .groupBy(workspaces.plan)
    .orderBy(workspaces.plan);
  return rows.flatMap((row) => (row.plan === null ? [] : [{ plan: row.plan, workspaces: row.workspaces }]));
}

/** The start-up warning for `findUnconfiguredPlans`' answer; undefined when every plan is configured. */
export function unconfiguredPlansWarning(found: UnconfiguredPlan[], defaultPlan: string): string | undefined {
  if (found.length === 0) return undefined;
  const total = found.reduce((sum, entry) => sum + entry.workspaces, 0);
  const names = found.map((entry) => `"${entry.plan}" (${entry.workspaces})`).join(", ");
  return `${total} workspace${total === 1 ? " is" : "s are"} assigned a plan WEFT_PLANS does not name: ${names}. They are held to the default plan "${defaultPlan}" until you assign one with \`weft server set-plan <workspaceId> <plan>\` or name the plan in WEFT_PLANS again.`;
}
