import { type Execution, errorSourceLocation, type WaitTokenView } from "@weft/contract";
import type { ExecutionDetail, ExecutionSummary, ExecutionToken } from "../../workflows/read-executions.ts";

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

export function toExecutionSummary(summary: ExecutionSummary) {
  return {
    ...summary,
    createdAt: summary.createdAt.toISOString(),
    startedAt: iso(summary.startedAt),
    finishedAt: iso(summary.finishedAt),
  };
}

/** The wire shape of a wait token (never its id). */
export function toWaitToken(token: ExecutionToken): WaitTokenView {
  return {
    name: token.name,
    status: token.status,
    createdAt: token.createdAt.toISOString(),
    expiresAt: token.expiresAt.toISOString(),
    finishedAt: iso(token.finishedAt),
    title: token.title,
    description: token.description,
    fields: token.fields ?? [],
    event: token.event,
    approvers: token.approvers,
    completedBy: token.completedBy,
  };
}

/** The wire shape of an execution with its steps and attempts. */
export function toExecution(detail: ExecutionDetail): Execution {
  return {
    ...toExecutionSummary(detail),
    input: detail.input,
    output: detail.output,
    error:
      detail.error === null
        ? null
        : {
            name: detail.error.name,
            message: detail.error.message,
            ...(detail.error.stack === undefined ? {} : { stack: detail.error.stack }),
            location: errorSourceLocation(detail.error.stack) ?? null,
          },
    maxAttempts: detail.maxAttempts,
    runAt: detail.runAt.toISOString(),
    cancelRequested: detail.cancelRequested,
    rerunOf: detail.rerunOf,
    parentExecutionId: detail.parentExecutionId,
    depth: detail.depth,
    children: detail.children,
    tags: detail.tags,
    traceId: detail.traceId,
    logs: detail.logs,
    steps: detail.steps.map((step) => ({
      ...step,
      startedAt: step.startedAt.toISOString(),
      finishedAt: step.finishedAt.toISOString(),
      wakeAt: iso(step.wakeAt),
    })),
    failedSteps: detail.failedSteps.map((step) => ({
      ...step,
      startedAt: step.startedAt.toISOString(),
      finishedAt: step.finishedAt.toISOString(),
    })),
    tokens: detail.tokens.map(toWaitToken),
    attempts: detail.attempts.map((attempt) => ({
      ...attempt,
      startedAt: attempt.startedAt.toISOString(),
      endedAt: iso(attempt.endedAt),
    })),
  };
}
