import { nextTick, type ScheduleManifest } from "@weft/contract";
import { eq } from "drizzle-orm";
import type { Transaction } from "../db/database.ts";
import { schedules } from "../db/schema/index.ts";

/**
 * Makes the project's schedules those of the deployment becoming active, in the transaction that
 * activates it (a deploy or a rollback), so no tick ever sees half of each. A schedule that keeps
 * its name keeps its last run, its latest skipped tick and a pause made through the API; it keeps
 * its next tick too when its timing is unchanged, so a tick due during the deploy is not lost.
 * Otherwise `enabled` comes from the config, and a schedule that starts running counts its ticks
 * from now on.
 */
export async function replaceSchedules(
  tx: Transaction,
  request: { projectId: string; deploymentId: string; schedules: readonly ScheduleManifest[]; now: Date },
): Promise<void> {
  const { projectId, now } = request;
  const kept = new Map(
    (await tx.select().from(schedules).where(eq(schedules.projectId, projectId)).for("update")).map((row) => [
      row.name,
      row,
    ]),
  );
  await tx.delete(schedules).where(eq(schedules.projectId, projectId));
  if (request.schedules.length === 0) return;
  const rows = request.schedules.map((schedule) => {
    const before = kept.get(schedule.name);
    const pausedThroughApi = before?.pausedThroughApi ?? false;
    const enabled = schedule.enabled && !pausedThroughApi;
    const sameTicks =
      before?.enabled === true && before.cron === schedule.cron && before.timezone === schedule.timezone;
    return {
      projectId,
      name: schedule.name,
      deploymentId: request.deploymentId,
      workflow: schedule.workflow,
      cron: schedule.cron,
      timezone: schedule.timezone,
      input: schedule.input ?? null,
      configEnabled: schedule.enabled,
      enabled,
      pausedThroughApi,
      nextRunAt: !enabled ? null : sameTicks ? before.nextRunAt : nextTick(schedule.cron, schedule.timezone, now),
      lastRunAt: before?.lastRunAt ?? null,
      lastExecutionId: before?.lastExecutionId ?? null,
      lastSkippedAt: before?.lastSkippedAt ?? null,
      lastSkipReason: before?.lastSkipReason ?? null,
      updatedAt: now,
    };
  });
  await tx.insert(schedules).values(rows);
}
