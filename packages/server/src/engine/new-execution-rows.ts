import type { executions } from "../db/schema/index.ts";
import type { SpanRow } from "./execution-state/span-writes.ts";
import type { Admission } from "./flow-control/flow-keys.ts";

/** The columns a new execution is written with (the others keep their defaults); the lease's are set when it starts at once (`local-starts.ts`). */
export const newExecutionKeys = [
  "id",
  "projectId",
  "deploymentId",
  "workflow",
  "status",
  "input",
  "attempt",
  "maxAttempts",
  "retryMinDelayMs",
  "retryMaxDelayMs",
  "timeoutMs",
  "concurrencyLimit",
  "concurrencyKey",
  "priority",
  "debounceKey",
  "cancelKeys",
  "runAt",
  "triggerKind",
  "triggerName",
  "rerunOf",
  "parentExecutionId",
  "parentWaitName",
  "depth",
  "tags",
  "expiresAt",
  "traceId",
  "executionSpanId",
  "logs",
  "createdAt",
  "leaseOwner",
  "leaseExpiresAt",
  "startedAt",
  "finishedAt",
  "error",
] as const;
export type NewExecution = Required<Pick<typeof executions.$inferInsert, (typeof newExecutionKeys)[number]>> & {
  id: string;
};

/** A new execution's rows as `queuedExecutionRows` makes them, before they are inserted (`insertNewExecutions`). */
export interface NewExecutionRows {
  execution: NewExecution;
  spans: SpanRow[];
  admission?: Admission | undefined;
}
