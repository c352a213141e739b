import { and, asc, desc, eq, gte, inArray, isNull, or } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { executionSteps, executions, projects, spans } from "../db/schema/index.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { deriveEvents, type ExecutionEventRecord, type StoredExecution } from "./derive-events.ts";
import { comparePositions, type EventPosition, encodePosition } from "./event-position.ts";

/**
 * How many executions a project's stream follows at once: the newest of those still going or
 * ended since the cursor. Older ones are read one by one (`executionId`).
 */
export const followedExecutionsLimit = 200;

export interface ListEventsRequest {
  /** One execution, a project's executions, or those of every project of a workspace (Studio's pages). */
  scope: { executionId: string } | { projectId: string } | { workspaceId: string };
  after: EventPosition;
  limit: number;
}

export interface EventsPage {
  events: ExecutionEventRecord[];
  /** Where the next page starts: after the last event, or the request's own cursor when none came. */
  nextCursor: string;
  hasMore: boolean;
}

const executionColumns = {
  id: executions.id,
  workflow: executions.workflow,
  status: executions.status,
  createdAt: executions.createdAt,
  logs: executions.logs,
  error: executions.error,
};

async function loadStored(db: Database, rows: StoredExecution["execution"][]): Promise<StoredExecution[]> {
  const ids = rows.map((row) => row.id);
  if (ids.length === 0) return [];
  const [steps, spanRows] = await Promise.all([
    db
      .select()
      .from(executionSteps)
      .where(inArray(executionSteps.executionId, ids))
      .orderBy(asc(executionSteps.finishedAt), asc(executionSteps.sequence)),
    db
      .select()
      .from(spans)
      .where(and(inArray(spans.executionId, ids), inArray(spans.kind, ["execution", "attempt", "step"]))),
  ]);
  return rows.map(
    (execution): StoredExecution => ({
      execution,
      steps: steps.filter((step) => step.executionId === execution.id),
      // Stored steps are their own events; only the spans of steps that failed add to them.
      spans: spanRows.filter(
        (span) => span.executionId === execution.id && (span.kind !== "step" || span.statusCode === "error"),
      ),
    }),
  );
}

/**
 * One page of the events of an execution or a project, in stream order, after `request.after`.
 * not_found when the execution does not exist (the caller checks who may see it).
 */
export async function listEvents(db: Database, request: ListEventsRequest): Promise<ServiceResult<EventsPage>> {
  const { scope, after, limit } = request;
  const rows =
    "executionId" in scope
      ? await db.select(executionColumns).from(executions).where(eq(executions.id, scope.executionId))
      : await db
          .select(executionColumns)
          .from(executions)
          .where(
            and(
              "projectId" in scope
                ? eq(executions.projectId, scope.projectId)
                : inArray(
                    executions.projectId,
                    db.select({ id: projects.id }).from(projects).where(eq(projects.workspaceId, scope.workspaceId)),
                  ),
              or(isNull(executions.finishedAt), gte(executions.finishedAt, after.recordedAt)),
            ),
          )
          .orderBy(desc(executions.createdAt))
          .limit(followedExecutionsLimit);
  if ("executionId" in scope && rows.length === 0) return fail.notFound("execution");
  const stored = await loadStored(db, rows);
  const pending = stored
    .flatMap(deriveEvents)
    .filter((event) => comparePositions(event.position, after) > 0)
    .sort((a, b) => comparePositions(a.position, b.position));
  const events = pending.slice(0, limit);
  const last = events[events.length - 1];
  return ok({
    events,
    nextCursor: encodePosition(last === undefined ? after : last.position),
    hasMore: pending.length > limit,
  });
}
