import { executionsCountCap } from "@weft/contract";
import { and, arrayContains, asc, count, eq, gte, isNull, lte, type SQL, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import {
  type CappedCountKeysetPage,
  cursorCondition,
  fetchCappedCountKeysetPage,
  type PageRequest,
  sliceOrder,
} from "../db/keyset-page.ts";
import {
  accounts,
  type ExecutionStatus,
  executionSteps,
  executions,
  type LogEntry,
  spans,
  type WaitTokenApprovers,
  type WaitTokenField,
  type WaitTokenStatus,
  waitTokens,
} from "../db/schema/index.ts";
import { statusAmong } from "../engine/execution-state/status-conditions.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";

/** A wait token of an execution as a reader sees it: what it asks, who may answer, and who did. */
export interface ExecutionToken {
  name: string;
  status: WaitTokenStatus;
  createdAt: Date;
  expiresAt: Date;
  finishedAt: Date | null;
  title: string | null;
  description: string | null;
  fields: WaitTokenField[] | null;
  approvers: WaitTokenApprovers;
  /** The event it waits for (`ctx.waitForEvent`); null for a token a person or a call answers. */
  event: string | null;
  /** The signed-in account that completed it; null when it was completed through its URL, or is not completed. */
  completedBy: { accountId: string; email: string | null } | null;
}

export interface ExecutionSummary {
  id: string;
  projectId: string;
  deploymentId: string;
  workflow: string;
  status: ExecutionStatus;
  attempt: number;
  trigger: { kind: string; name: string | null };
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  tags: string[];
}

export interface ExecutionStep {
  name: string;
  kind: "step" | "sleep";
  attempt: number;
  startedAt: Date;
  finishedAt: Date;
  durationMs: number;
  output: unknown;
  wakeAt: Date | null;
  logs: LogEntry[];
}

/** A step that threw: its span (kind `step`, status `error`) is all that is kept of it. */
export interface FailedStep {
  name: string;
  attempt: number;
  startedAt: Date;
  finishedAt: Date;
  durationMs: number;
  error: { name: string; message: string };
}

export interface ExecutionDetail extends ExecutionSummary {
  input: unknown;
  output: unknown;
  error: { name: string; message: string; stack?: string | undefined } | null;
  maxAttempts: number;
  runAt: Date;
  cancelRequested: boolean;
  rerunOf: string | null;
  parentExecutionId: string | null;
  /** How many starts by executions lead to it (`executions.depth`). */
  depth: number;
  children: { id: string; workflow: string; status: ExecutionStatus }[];
  traceId: string;
  logs: LogEntry[];
  steps: ExecutionStep[];
  failedSteps: FailedStep[];
  /** Its wait tokens, without their ids (secrets). */
  tokens: ExecutionToken[];
  attempts: {
    number: number;
    resumed: boolean;
    startedAt: Date;
    endedAt: Date | null;
    status: string;
    error: string | null;
  }[];
}

const summaryColumns = {
  id: executions.id,
  projectId: executions.projectId,
  deploymentId: executions.deploymentId,
  workflow: executions.workflow,
  status: executions.status,
  attempt: executions.attempt,
  triggerKind: executions.triggerKind,
  triggerName: executions.triggerName,
  createdAt: executions.createdAt,
  startedAt: executions.startedAt,
  finishedAt: executions.finishedAt,
  tags: executions.tags,
};

type SummaryRow = Pick<
  typeof executions.$inferSelect,
  | "id"
  | "projectId"
  | "deploymentId"
  | "workflow"
  | "status"
  | "attempt"
  | "triggerKind"
  | "triggerName"
  | "createdAt"
  | "startedAt"
  | "finishedAt"
  | "tags"
>;

function toSummary(row: SummaryRow): ExecutionSummary {
  const { triggerKind, triggerName, ...rest } = row;
  return { ...rest, trigger: { kind: triggerKind, name: triggerName } };
}

export interface ListExecutionsRequest {
  projectId: string;
  workflow?: string | undefined;
  /** The name of the schedule that started them. */
  schedule?: string | undefined;
  /** Executions holding every one of these tags. */
  tags?: readonly string[] | undefined;
  status?: ExecutionStatus[] | undefined;
  createdFrom?: Date | undefined;
  createdTo?: Date | undefined;
  page: PageRequest;
  /** How far the total is counted; the contract's cap unless a test sets a smaller one. */
  countCap?: number;
}

/** One page of a project's executions, oldest first (ids are ULIDs: their order is creation order). */
export async function listExecutions(
  db: Database,
  request: ListExecutionsRequest,
): Promise<CappedCountKeysetPage<ExecutionSummary>> {
  const filters: (SQL | undefined)[] = [
    eq(executions.projectId, request.projectId),
    request.workflow === undefined ? undefined : eq(executions.workflow, request.workflow),
    request.schedule === undefined
      ? undefined
      : and(eq(executions.triggerKind, "schedule"), eq(executions.triggerName, request.schedule)),
    // The tags' index holds tagged executions only, and is read only where the filter says so.
    request.tags === undefined || request.tags.length === 0
      ? undefined
      : and(arrayContains(executions.tags, [...request.tags]), sql`cardinality(${executions.tags}) > 0`),
    request.status === undefined || request.status.length === 0 ? undefined : statusAmong(request.status),
    request.createdFrom === undefined ? undefined : gte(executions.createdAt, request.createdFrom),
    request.createdTo === undefined ? undefined : lte(executions.createdAt, request.createdTo),
  ];
  const page = await fetchCappedCountKeysetPage({
    request: request.page,
    countCap: request.countCap ?? executionsCountCap,
    selectSlice: async (slice) => {
      const rows = await db
        .select({ row: summaryColumns })
        .from(executions)
        .where(and(...filters, cursorCondition(executions.id, slice)))
        .orderBy(sliceOrder(executions.id, slice))
        .limit(slice.limit);
      return rows.map(({ row }) => row);
    },
    countMatching: async (limit) => {
      const matching = db
        .select({ id: executions.id })
        .from(executions)
        .where(and(...filters))
        .limit(limit)
        .as("matching");
      const [counted] = await db.select({ count: count() }).from(matching);
      return counted?.count ?? 0;
    },
  });
  return { ...page, rows: page.rows.map(toSummary) };
}

function toFailedStep(span: typeof spans.$inferSelect): FailedStep {
  const { attributes } = span;
  return {
    name: String(attributes["weft.step.name"]),
    attempt: Number(attributes["weft.execution.attempt"]),
    startedAt: span.startTime,
    finishedAt: span.endTime ?? span.startTime,
    durationMs: Number(attributes["weft.step.duration_ms"]),
    error: { name: String(attributes["exception.type"]), message: span.statusMessage ?? "" },
  };
}

/** One execution with its steps (timings, results, logs), failed steps and attempts; not_found if absent. */
export async function getExecution(
  db: Database,
  request: { executionId: string; projectId?: string | undefined },
): Promise<ServiceResult<ExecutionDetail>> {
  const [row] = await db.select().from(executions).where(eq(executions.id, request.executionId));
  if (row === undefined || (request.projectId !== undefined && row.projectId !== request.projectId)) {
    return fail.notFound("execution");
  }
  const steps = await db
    .select()
    .from(executionSteps)
    .where(eq(executionSteps.executionId, row.id))
    .orderBy(asc(executionSteps.startedAt), asc(executionSteps.sequence));
  const tokenRows = await db
    .select({
      name: waitTokens.name,
      status: waitTokens.status,
      createdAt: waitTokens.createdAt,
      expiresAt: waitTokens.expiresAt,
      finishedAt: waitTokens.finishedAt,
      title: waitTokens.title,
      description: waitTokens.description,
      fields: waitTokens.fields,
      approvers: waitTokens.approvers,
      event: waitTokens.eventName,
      completedByAccountId: waitTokens.completedByAccountId,
      completedByEmail: accounts.email,
    })
    .from(waitTokens)
    .leftJoin(accounts, eq(accounts.id, waitTokens.completedByAccountId))
    // An invoke's wait is its child, listed among the children (an execution may have 10,000).
    .where(and(eq(waitTokens.executionId, row.id), isNull(waitTokens.childExecutionId)))
    .orderBy(asc(waitTokens.createdAt), asc(waitTokens.name));
  const tokens = tokenRows.map(
    ({ completedByAccountId, completedByEmail, ...token }): ExecutionToken => ({
      ...token,
      completedBy: completedByAccountId === null ? null : { accountId: completedByAccountId, email: completedByEmail },
    }),
  );
  const attemptSpans = await db
    .select()
    .from(spans)
    .where(and(eq(spans.executionId, row.id), eq(spans.kind, "attempt")))
    .orderBy(asc(spans.startTime));
  const failedStepSpans = await db
    .select()
    .from(spans)
    .where(and(eq(spans.executionId, row.id), eq(spans.kind, "step"), eq(spans.statusCode, "error")))
    .orderBy(asc(spans.startTime));
  return ok({
    ...toSummary(row),
    input: row.input,
    output: row.output,
    error: row.error,
    maxAttempts: row.maxAttempts,
    runAt: row.runAt,
    cancelRequested: row.cancelRequestedAt !== null,
    rerunOf: row.rerunOf,
    parentExecutionId: row.parentExecutionId,
    depth: row.depth,
    children: await db
      .select({ id: executions.id, workflow: executions.workflow, status: executions.status })
      .from(executions)
      .where(eq(executions.parentExecutionId, row.id))
      .orderBy(asc(executions.id))
      .limit(100),
    tags: row.tags,
    traceId: row.traceId,
    logs: row.logs,
    steps: steps.map((step) => ({
      name: step.name,
      kind: step.kind,
      attempt: step.attempt,
      startedAt: step.startedAt,
      finishedAt: step.finishedAt,
      durationMs: step.finishedAt.getTime() - step.startedAt.getTime(),
      output: step.result.value ?? null,
      wakeAt: step.wakeAt,
      logs: step.logs,
    })),
    failedSteps: failedStepSpans.map(toFailedStep),
    tokens,
    attempts: attemptSpans.map((span) => ({
      number: Number(span.attributes["weft.execution.attempt"] ?? 0),
      resumed: span.attributes["weft.resumed"] === true,
      startedAt: span.startTime,
      endedAt: span.endTime,
      status: span.statusCode,
      error: span.statusCode === "error" ? span.statusMessage : null,
    })),
  });
}
