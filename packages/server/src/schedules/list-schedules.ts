import type { Database } from "../db/database.ts";
import { fetchProjectRowsByName, type KeysetPage, type ProjectRowsRequest } from "../db/keyset-page.ts";
import { schedules } from "../db/schema/index.ts";
import type { ScheduleRecord } from "./schedule-record.ts";

/** One page of a project's schedules, by name (unique within a project). */
export function listSchedules(db: Database, request: ProjectRowsRequest): Promise<KeysetPage<ScheduleRecord>> {
  return fetchProjectRowsByName(db, schedules, request);
}
