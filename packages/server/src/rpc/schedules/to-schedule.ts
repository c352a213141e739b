import type { Schedule } from "@weft/contract";
import type { ScheduleRecord } from "../../schedules/schedule-record.ts";

export function toSchedule(record: ScheduleRecord): Schedule {
  return {
    name: record.name,
    workflow: record.workflow,
    cron: record.cron,
    timezone: record.timezone,
    enabled: record.enabled,
    pausedThroughApi: record.pausedThroughApi,
    nextRunAt: record.nextRunAt?.toISOString() ?? null,
    lastRunAt: record.lastRunAt?.toISOString() ?? null,
    lastExecutionId: record.lastExecutionId,
    lastSkippedAt: record.lastSkippedAt?.toISOString() ?? null,
    lastSkipReason: record.lastSkipReason,
  };
}
