import { eq } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { fetchTableKeysetPage, type KeysetPage, type PageRequest } from "../db/keyset-page.ts";
import { schedules } from "../db/schema/index.ts";
import type { ScheduleRecord } from "./schedule-record.ts";

/** One page of a project's schedules, by name (unique within a project). */
export function listSchedules(
  db: Database,
  request: { projectId: string; page: PageRequest },
): Promise<KeysetPage<ScheduleRecord>> {
  return fetchTableKeysetPage(db, {
    table: schedules,
    key: schedules.name,
    where: eq(schedules.projectId, request.projectId),
    request: request.page,
  });
}
