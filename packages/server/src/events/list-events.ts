import { and, eq } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { events } from "../db/schema/index.ts";
import {
  fetchSelectTimestampPage,
  type TimestampPage,
  type TimestampPageRequest,
} from "../db/timestamp-cursor-page.ts";
import { type SentEvent, toSentEvent } from "./send-event.ts";

export interface ListEventsRequest {
  projectId: string;
  name?: string | undefined;
  page: TimestampPageRequest;
}

/** A project's events, newest first on (sent at, id), paged by a timestamp cursor (`events_project_sent_idx`). */
export async function listEvents(db: Database, request: ListEventsRequest): Promise<TimestampPage<SentEvent>> {
  const page = await fetchSelectTimestampPage({
    request: request.page,
    order: { at: events.sentAt, id: events.id },
    where: and(
      eq(events.projectId, request.projectId),
      request.name === undefined ? undefined : eq(events.name, request.name),
    ),
    select: () => db.select().from(events).$dynamic(),
    cursorOf: (row) => ({ at: row.sentAt, id: row.id }),
  });
  return { next: page.next, rows: page.rows.map(toSentEvent) };
}
