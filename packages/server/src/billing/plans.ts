import type { Plan, QuotaName } from "@weft/contract";

/** The one plan there is when the operator configures none: no quota at all. */
export const unlimitedPlan: Plan = { name: "unlimited" };

export interface PlanCatalogue {
  plans: readonly Plan[];
  /** The plan of a workspace the operator has assigned none (WEFT_DEFAULT_PLAN). */
  defaultPlan: string;
}

/** The plan a workspace is on: its assigned one, else the default (also for a name no longer configured). */
export function planOf(catalogue: PlanCatalogue, assigned: string | null | undefined): Plan {
  const byName = (name: string) => catalogue.plans.find((plan) => plan.name === name);
  return (assigned == null ? undefined : byName(assigned)) ?? byName(catalogue.defaultPlan) ?? unlimitedPlan;
}

/** Whether a plan sets any monthly quota, i.e. whether its triggers need counting before they start. */
export function hasMonthlyQuota(plan: Plan): boolean {
  return (
    plan.executionsPerMonth !== undefined || plan.stepSecondsPerMonth !== undefined || plan.storageBytes !== undefined
  );
}

export const quotaUnits: Record<QuotaName, string> = {
  executionsPerMonth: "executions this month",
  stepSecondsPerMonth: "step-seconds this month",
  projects: "projects",
  storageBytes: "bytes stored this month",
  workspaces: "workspaces per account",
};
