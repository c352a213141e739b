import { and, eq, gte, lte, type SQL } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { auditEvents } from "../db/schema/index.ts";
import {
  fetchSelectTimestampPage,
  type TimestampPage,
  type TimestampPageRequest,
} from "../db/timestamp-cursor-page.ts";

export type AuditEventRecord = typeof auditEvents.$inferSelect;

export interface AuditLogFilter {
  /** An account id or a credential id. */
  actor?: string | undefined;
  action?: string | undefined;
  targetType?: string | undefined;
  targetId?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
}

/** A workspace's audit events matching the filter, newest first, paged by a timestamp cursor. */
export function readAuditLog(
  db: Database,
  input: { workspaceId: string; filter: AuditLogFilter; page: TimestampPageRequest },
): Promise<TimestampPage<AuditEventRecord>> {
  const { filter } = input;
  const conditions: (SQL | undefined)[] = [
    eq(auditEvents.workspaceId, input.workspaceId),
    filter.actor === undefined
      ? undefined
      : filter.actor.startsWith("cred_")
        ? eq(auditEvents.actorCredentialId, filter.actor)
        : eq(auditEvents.actorAccountId, filter.actor),
    filter.action === undefined ? undefined : eq(auditEvents.action, filter.action),
    filter.targetType === undefined ? undefined : eq(auditEvents.targetType, filter.targetType),
    filter.targetId === undefined ? undefined : eq(auditEvents.targetId, filter.targetId),
    filter.since === undefined ? undefined : gte(auditEvents.createdAt, filter.since),
    filter.until === undefined ? undefined : lte(auditEvents.createdAt, filter.until),
  ];
  return fetchSelectTimestampPage({
    request: input.page,
    order: { at: auditEvents.createdAt, id: auditEvents.id },
    where: and(...conditions),
    select: () => db.select().from(auditEvents).$dynamic(),
    cursorOf: (event) => ({ at: event.createdAt, id: event.id }),
  });
}
