import type { schedules } from "../db/schema/index.ts";

/** A schedule as stored: its definition from the active deployment and its firing state. */
export type ScheduleRecord = typeof schedules.$inferSelect;
