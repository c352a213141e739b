import type { Schedule } from "@weft/contract";

/** Whether a schedule's ticks start executions, and who stopped them if not. */
export function scheduleState(schedule: Schedule): { label: string; className: string } {
  if (schedule.pausedThroughApi) return { label: "paused", className: "status-cancelled" };
  if (!schedule.enabled) return { label: "disabled in the config", className: "status-cancelled" };
  return { label: "active", className: "status-succeeded" };
}
