import { and, eq, getTableColumns } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import {
  cursorCondition,
  fetchKeysetPage,
  type KeysetPage,
  matchingCount,
  type PageRequest,
  sliceOrder,
} from "../db/keyset-page.ts";
import { schedules } from "../db/schema/index.ts";
import type { ScheduleRecord } from "./schedule-record.ts";

/** One page of a project's schedules, by name (unique within a project). */
export async function listSchedules(
  db: Database,
  request: { projectId: string; page: PageRequest },
): Promise<KeysetPage<ScheduleRecord>> {
  return fetchKeysetPage({
    request: request.page,
    selectSlice: (slice) =>
      db
        .select({ row: getTableColumns(schedules), matchingCount: matchingCount() })
        .from(schedules)
        .where(and(eq(schedules.projectId, request.projectId), cursorCondition(schedules.name, slice)))
        .orderBy(sliceOrder(schedules.name, slice))
        .limit(slice.limit),
  });
}
