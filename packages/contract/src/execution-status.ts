/**
 * Every state an execution can be in, in the order of its life. Plain values rather than a schema
 * (`executionStatusSchema` is built from them), so that a browser page reads them without zod.
 */
export const executionStatuses = [
  "queued",
  "running",
  "sleeping",
  "waiting",
  "succeeded",
  "failed",
  "cancelled",
  "expired",
] as const;

export type ExecutionStatusValue = (typeof executionStatuses)[number];

/** The states an execution ends in: once in one, it changes no more. */
export const finalExecutionStatuses = [
  "succeeded",
  "failed",
  "cancelled",
  "expired",
] as const satisfies readonly ExecutionStatusValue[];
