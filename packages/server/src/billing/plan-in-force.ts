import type { PlanInForce } from "@weft/contract";
import type { Database } from "../db/database.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { monthOf } from "./billing-month.ts";
import { countProjects, readMonthUsage, readWorkspacePlan } from "./month-usage.ts";
import type { PlanCatalogue } from "./plans.ts";

/** A workspace's plan with this month's use of its quotas (`billing.getPlan`). */
export async function readPlanInForce(
  db: Database,
  deps: { catalogue: PlanCatalogue; now: Date },
  workspaceId: string,
): Promise<ServiceResult<PlanInForce>> {
  const plan = await readWorkspacePlan(db, deps.catalogue, workspaceId);
  if (plan === undefined) return fail.notFound("workspace");
  const [month, projects] = await Promise.all([
    readMonthUsage(db, workspaceId, deps.now),
    countProjects(db, workspaceId),
  ]);
  const period = monthOf(deps.now);
  return ok({
    workspaceId,
    plan,
    used: { ...month, projects },
    periodStart: period.start.toISOString(),
    resetsAt: period.end.toISOString(),
  });
}
