import { eq } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { workspaces } from "../db/schema/index.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import type { PlanCatalogue } from "./plans.ts";

/**
 * Puts a workspace on one of the configured plans (`weft server set-plan`). Every process sees the
 * change within its quota cache's second.
 */
export async function assignPlan(
  db: Database,
  catalogue: PlanCatalogue,
  request: { workspaceId: string; plan: string },
): Promise<ServiceResult<{ workspaceId: string; plan: string }>> {
  if (!catalogue.plans.some((plan) => plan.name === request.plan)) {
    const known = catalogue.plans.map((plan) => plan.name).join(", ");
    return fail.invalid(`no plan is named "${request.plan}" in WEFT_PLANS; the plans are ${known}`, [
      { path: "plan", message: "unknown plan" },
    ]);
  }
  const [updated] = await db
    .update(workspaces)
    .set({ plan: request.plan })
    .where(eq(workspaces.id, request.workspaceId))
    .returning({ id: workspaces.id });
  if (updated === undefined) return fail.notFound("workspace");
  return ok({ workspaceId: updated.id, plan: request.plan });
}
