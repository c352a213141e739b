import { and, eq } from "drizzle-orm";
import { type ProjectChange, recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { schedules } from "../db/schema/index.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { type RunWorkflowDependencies, runWorkflow } from "../workflows/run-workflow.ts";
import type { ScheduleRecord } from "./schedule-record.ts";

export interface RunScheduleNowRequest extends ProjectChange {
  name: string;
}

/**
 * Starts the schedule's workflow now with the input a tick would give it (`scheduledFor` is now),
 * paused or not, through the same checks as any start through the API: the workflow's schema, the
 * queue's backpressure and the plan's quotas. The execution carries the schedule as its trigger,
 * becomes the schedule's last run, and is audited (`schedule.run`) in the transaction that queues
 * it. The next tick is left as it was: a run now is extra, not an early tick.
 */
export async function runScheduleNow(
  db: Database,
  deps: RunWorkflowDependencies,
  request: RunScheduleNowRequest,
): Promise<ServiceResult<{ executionId: string; schedule: ScheduleRecord }>> {
  const where = and(eq(schedules.projectId, request.projectId), eq(schedules.name, request.name));
  const [schedule] = await db.select().from(schedules).where(where);
  if (schedule === undefined) return fail.notFound({ message: `The project has no schedule "${request.name}".` });
  const now = deps.clock.now();
  let updated: ScheduleRecord | undefined;
  const started = await runWorkflow(db, deps, {
    projectId: request.projectId,
    workflow: schedule.workflow,
    input: { scheduledFor: now.toISOString(), ...(schedule.input ?? {}) },
    trigger: { kind: "schedule", name: schedule.name },
    alsoOnStart: async (tx, executionId) => {
      [updated] = await tx
        .update(schedules)
        .set({ lastRunAt: now, lastExecutionId: executionId, updatedAt: now })
        .where(where)
        .returning();
      await recordAuditEvent(tx, deps, {
        action: "schedule.run",
        targetType: "schedule",
        targetId: `${request.projectId}/${request.name}`,
        workspaceId: request.workspaceId,
        actor: request.actor,
        data: { projectId: request.projectId, name: request.name, workflow: schedule.workflow, executionId },
      });
    },
  });
  if (!started.ok) return started;
  const { executionId } = started.value;
  // A deploy between the read and the start replaces the row; the execution has started all the same.
  return ok({ executionId, schedule: updated ?? { ...schedule, lastRunAt: now, lastExecutionId: executionId } });
}
