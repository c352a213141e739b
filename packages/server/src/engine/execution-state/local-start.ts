import type { WorkflowManifest } from "@weft/contract";
import { hasFlowControl } from "../flow-control/flow-keys.ts";
import type { LocalStart } from "../local-starts.ts";
import type { NewExecutionRows } from "../new-execution-rows.ts";
import { newSpanId } from "../trace-ids.ts";
import { attemptSpanRow } from "./attempt-spans.ts";
import type { ClaimedExecution } from "./claim.ts";
import { isAllowed, transitions } from "./execution-states.ts";

/**
 * Whether a claim would lease a new execution of `workflow` at once, so that it may start locally:
 * no flow control (a concurrency limit or key, a rate, a debounce: the claim's own to apply), due
 * now (a delayed run waits for its time in the queue), and no time to live to check at its start.
 */
export function startsAtOnce(workflow: WorkflowManifest, rows: NewExecutionRows): boolean {
  const { runAt, createdAt, expiresAt } = rows.execution;
  return !hasFlowControl(workflow) && runAt.getTime() <= createdAt.getTime() && expiresAt === null;
}

/**
 * `startLocally`: a new execution's rows, about to be written in the state it would have been
 * queued in, changed into those of its first attempt leased to `start`'s worker, and the execution
 * as that worker runs it: what the claim's `leaseAndReturn` writes and returns, attempt span
 * included, for an execution that never ran. The rows are inserted as they are
 * (`insertNewExecutions`), so this is the transition's whole change; any other state throws, as
 * no caller may hand one.
 */
export function startLocally(
  rows: NewExecutionRows,
  start: LocalStart,
): { rows: NewExecutionRows; execution: ClaimedExecution } {
  const queued = rows.execution;
  if (!isAllowed("startLocally", queued.status))
    throw new Error(`a local start cannot take a new ${queued.status} row`);
  const attemptSpanId = newSpanId();
  const attemptSpan = attemptSpanRow(queued, attemptSpanId, start.workerId, start.now);
  return {
    rows: {
      execution: {
        ...queued,
        status: transitions.startLocally.to,
        leaseOwner: start.workerId,
        leaseExpiresAt: start.leaseExpiresAt,
        startedAt: start.now,
      },
      spans: [...rows.spans, attemptSpan],
    },
    execution: {
      id: queued.id,
      projectId: queued.projectId,
      accountId: start.accountId,
      deploymentId: queued.deploymentId,
      workflow: queued.workflow,
      input: queued.input,
      attempt: queued.attempt,
      maxAttempts: queued.maxAttempts,
      retryMinDelayMs: queued.retryMinDelayMs,
      retryMaxDelayMs: queued.retryMaxDelayMs,
      timeoutMs: queued.timeoutMs,
      traceId: queued.traceId,
      executionSpanId: queued.executionSpanId,
      cancelRequested: false,
      expiresAt: null,
      hasHistory: false,
      transition: "startLocally",
      attemptSpanId,
      logBytes: Buffer.byteLength(JSON.stringify(queued.logs)),
      leaseExpiries: 0,
      depth: queued.depth,
    },
  };
}
