import { latestTick, nextTick, type WorkflowManifest } from "@weft/contract";
import { and, eq, lte, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { deployments, schedules, scheduleTicks } from "../db/schema/index.ts";
import { insertNewExecutions, type NewExecutionRows, queuedExecutionRows } from "../engine/enqueue-execution.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";

/** Most schedules one firing pass handles; a pass that fills it is followed by another. */
const schedulesPerPass = 100;

export interface FiredTick {
  projectId: string;
  schedule: string;
  scheduledFor: Date;
  executionId: string;
}

/**
 * Starts one execution (trigger kind `schedule`) for each enabled schedule whose tick has come,
 * with `{ scheduledFor, ...input }` as input. Any number of workers may call it at once: the due
 * rows are locked with SKIP LOCKED, and the tick is claimed in `schedule_ticks`, whose primary key
 * (schedule, tick) admits one execution per tick whatever happens to the schedule's row. The tick,
 * its execution and the schedule's next tick commit together, so a worker that dies in between
 * leaves the tick due for the next pass. Ticks missed while no worker ran are not replayed: a late
 * schedule fires once, for its latest tick, and then waits for its next one from now.
 */
export async function fireDueSchedules(db: Database, deps: { clock: Clock; ids: IdGenerator }): Promise<FiredTick[]> {
  const fired: FiredTick[] = [];
  for (;;) {
    const pass = await firePass(db, deps);
    fired.push(...pass.fired);
    if (pass.due < schedulesPerPass) return fired;
  }
}

async function firePass(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator },
): Promise<{ due: number; fired: FiredTick[] }> {
  return db.transaction(async (tx) => {
    const now = deps.clock.now();
    const due = await tx
      .select({
        projectId: schedules.projectId,
        name: schedules.name,
        deploymentId: schedules.deploymentId,
        workflow: schedules.workflow,
        cron: schedules.cron,
        timezone: schedules.timezone,
        input: schedules.input,
        nextRunAt: schedules.nextRunAt,
        workflows: sql<WorkflowManifest[]>`${deployments.manifest} -> 'workflows'`,
      })
      .from(schedules)
      .innerJoin(deployments, eq(deployments.id, schedules.deploymentId))
      .where(and(eq(schedules.enabled, true), lte(schedules.nextRunAt, now)))
      .orderBy(schedules.nextRunAt)
      .limit(schedulesPerPass)
      .for("update", { of: schedules, skipLocked: true });
    const fired: FiredTick[] = [];
    const queued: NewExecutionRows[] = [];
    for (const schedule of due) {
      const scheduledFor = latestTick(schedule.cron, schedule.timezone, now) ?? schedule.nextRunAt ?? now;
      const workflow = schedule.workflows.find((entry) => entry.name === schedule.workflow);
      if (workflow === undefined) throw new Error(`schedule ${schedule.name} names a workflow its deployment lacks`);
      const rows = queuedExecutionRows(
        deps,
        {
          projectId: schedule.projectId,
          deploymentId: schedule.deploymentId,
          workflow: schedule.workflow,
          input: { scheduledFor: scheduledFor.toISOString(), ...schedule.input },
          trigger: { kind: "schedule", name: schedule.name },
        },
        workflow,
      );
      const claimed = await tx
        .insert(scheduleTicks)
        .values({
          projectId: schedule.projectId,
          scheduleName: schedule.name,
          scheduledFor,
          executionId: rows.execution.id,
          firedAt: now,
        })
        .onConflictDoNothing()
        .returning({ executionId: scheduleTicks.executionId });
      const executionId = claimed[0]?.executionId;
      if (executionId !== undefined) {
        queued.push(rows);
        fired.push({ projectId: schedule.projectId, schedule: schedule.name, scheduledFor, executionId });
      }
      await tx
        .update(schedules)
        .set({
          nextRunAt: nextTick(schedule.cron, schedule.timezone, now),
          ...(executionId === undefined ? {} : { lastRunAt: scheduledFor, lastExecutionId: executionId }),
        })
        .where(and(eq(schedules.projectId, schedule.projectId), eq(schedules.name, schedule.name)));
    }
    if (queued.length > 0) await insertNewExecutions(tx, queued);
    return { due: due.length, fired };
  });
}
