import { nextTick } from "@weft/contract";
import { and, eq } from "drizzle-orm";
import { type ProjectChange, recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { schedules } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import type { ScheduleRecord } from "./schedule-record.ts";

export interface SchedulePausingRequest extends ProjectChange {
  name: string;
}

/**
 * Pauses (`paused`) or resumes a schedule through the API. Such a pause outlasts deploys and
 * rollbacks (which otherwise re-apply the config's `enabled`) until resumed. A resume, whether the
 * API or the config paused the schedule, counts its ticks from now (ticks missed while paused are not
 * run); a later deploy re-applies the config's `enabled`.
 */
export async function setSchedulePaused(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator },
  request: SchedulePausingRequest,
  paused: boolean,
): Promise<ServiceResult<ScheduleRecord>> {
  return db.transaction(async (tx) => {
    const where = and(eq(schedules.projectId, request.projectId), eq(schedules.name, request.name));
    const [before] = await tx.select().from(schedules).where(where).for("update");
    if (before === undefined) return fail.notFound({ message: `The project has no schedule "${request.name}".` });
    const now = deps.clock.now();
    const [after] = await tx
      .update(schedules)
      .set(
        paused
          ? { enabled: false, pausedThroughApi: true, nextRunAt: null, updatedAt: now }
          : {
              enabled: true,
              pausedThroughApi: false,
              nextRunAt: before.enabled ? before.nextRunAt : nextTick(before.cron, before.timezone, now),
              updatedAt: now,
            },
      )
      .where(where)
      .returning();
    if (after === undefined) throw new Error("the schedule update returned no row");
    await recordAuditEvent(tx, deps, {
      action: paused ? "schedule.paused" : "schedule.resumed",
      targetType: "schedule",
      targetId: `${request.projectId}/${request.name}`,
      workspaceId: request.workspaceId,
      actor: request.actor,
      data: { projectId: request.projectId, name: request.name, wasEnabled: before.enabled },
    });
    return ok(after);
  });
}
