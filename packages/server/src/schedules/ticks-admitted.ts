import type { Plan, QuotaRefusal } from "@weft/contract";
import { exhaustedMonthlyQuota, type MonthUsage } from "../billing/month-usage.ts";
import { hasMonthlyQuota } from "../billing/plans.ts";

/**
 * How many of a workspace's `ticks` due now may start an execution under its plan, and the refusal
 * the others get; undefined for a plan without monthly quotas, whose usage is then not read. Under
 * `executionsPerMonth` the first ticks take what is left; a used-up step time or storage quota
 * admits none.
 */
export async function ticksAdmitted(
  plan: Plan,
  readUsage: () => Promise<MonthUsage>,
  request: { ticks: number; now: Date },
): Promise<{ admitted: number; refusal: QuotaRefusal | undefined } | undefined> {
  if (!hasMonthlyQuota(plan)) return undefined;
  const used = await readUsage();
  const exhausted = exhaustedMonthlyQuota(plan, used, request.now);
  if (exhausted !== undefined) return { admitted: 0, refusal: exhausted };
  const left =
    plan.executionsPerMonth === undefined ? request.ticks : Math.max(0, plan.executionsPerMonth - used.executions);
  if (left >= request.ticks) return { admitted: request.ticks, refusal: undefined };
  const after = { ...used, executions: used.executions + left };
  return { admitted: left, refusal: exhaustedMonthlyQuota(plan, after, request.now) };
}
