import type { SpanRow } from "../execution-state/index.ts";

/**
 * Whether an execution may go on running steps under its workspace's plan: billing's step-seconds
 * quota (`billing/step-quota.ts`), asked before an attempt runs and after each step it records.
 */
export interface StepQuota {
  /** Why it may not, counting `unstoredSteps` (the spans of the attempt's steps not stored yet); undefined while it may. */
  exceeded(projectId: string, unstoredSteps: readonly SpanRow[]): Promise<{ message: string } | undefined>;
}
