import { assignPlan } from "../billing/assign-plan.ts";
import type { PlanCatalogue } from "../billing/plans.ts";
import type { Database } from "../db/database.ts";

/** What an operator command answers: the line to print, and whether it did what was asked. */
export interface OperatorAnswer {
  ok: boolean;
  message: string;
}

export interface OperatorDependencies {
  db: Database;
  catalogue: PlanCatalogue;
}

/**
 * The operator commands that may run inside a running platform as well as on their own: each is a
 * change of rows that every process reads again within its caches' lifetimes. Rotating the secret
 * key is not one: a running process keeps the key it started with, so rotation needs it stopped.
 */
export const operatorCommands = {
  /** Puts the workspace `args[0]` on the plan `args[1]` of WEFT_PLANS. */
  "set-plan": async (deps: OperatorDependencies, args: readonly string[]): Promise<OperatorAnswer> => {
    const [workspaceId = "", plan = ""] = args;
    const assigned = await assignPlan(deps.db, deps.catalogue, { workspaceId, plan });
    if (!assigned.ok) return { ok: false, message: assigned.failure.message };
    return { ok: true, message: `Workspace ${workspaceId} is now on the plan "${plan}".` };
  },
} as const satisfies Record<string, (deps: OperatorDependencies, args: readonly string[]) => Promise<OperatorAnswer>>;

export type OperatorCommand = keyof typeof operatorCommands;

export function isOperatorCommand(name: string): name is OperatorCommand {
  return Object.hasOwn(operatorCommands, name);
}
