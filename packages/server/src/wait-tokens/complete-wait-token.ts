import { and, eq, sql } from "drizzle-orm";
import { type AuditedChange, recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { waitTokens } from "../db/schema/index.ts";
import { resumeWaiting } from "../engine/execution-state/index.ts";
import { closeSpans, endedWith, spanEnds } from "../engine/execution-state/span-writes.ts";
import { formatLimit, maxTokenDataBytes } from "../engine/limits.ts";
import { jsonParam, sqlRows } from "../engine/sql-rows.ts";
import { tokenHashOf, tokenIdPattern } from "../engine/wait-token-ids.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { checkStorableJson, describeUnstorable } from "../shared/storable-json.ts";
import { tokenNotFoundMessage } from "./find-wait-token.ts";

export const tokenCompletedMessage = "This wait token has already been completed.";
export const membersOnlyTokenMessage =
  "Only a signed-in member of the workspace may answer this wait token: answer it in Weft Studio or through the API.";

/** A token named by its id (its URL), or by its execution and name (a member who sees the execution). */
export type TokenTarget = { tokenId: string } | { executionId: string; name: string };

export type TokenCompletion = TokenTarget & {
  /** What `ctx.waitForToken` returns as `data`; `undefined` is stored as null. */
  data: unknown;
  /** When given (the API, after its access check), a token of another project is not found. */
  projectId?: string | undefined;
  /**
   * The signed-in account that answers (Studio, the API), after its access check; recorded with the
   * token. Without it (the token's URL) a members-only token is refused.
   */
  completedBy?: string | undefined;
  /** Who answers, for the audit event a signed-in answer writes with the completion (`ids` names it). */
  audit?: (AuditedChange & { ids: IdGenerator }) | undefined;
};

/** `data` as stored, or why it cannot be: not storable JSON, or over `maxTokenDataBytes`. */
function checkData(data: unknown): ServiceResult<unknown> {
  const value = data === undefined ? null : data;
  const storable = checkStorableJson(value);
  if (!storable.ok)
    return fail.invalid("The data cannot be stored", [{ path: "", message: describeUnstorable(storable) }]);
  if (Buffer.byteLength(JSON.stringify(value)) > maxTokenDataBytes) {
    return fail.invalid("The data is too large", [
      { path: "", message: `at most ${formatLimit(maxTokenDataBytes)} of JSON` },
    ]);
  }
  return ok(value);
}

/**
 * Completes a pending, unexpired wait token with `data`: its span ends and its execution, if it
 * waits, is due at once (`resumeWaiting`). A token completed before is a conflict and changes
 * nothing, so an execution resumes once; an unknown, expired or ended one is not found.
 * `beforeCommit` may throw to roll everything back (the ingress budget).
 */
export async function completeWaitToken(
  db: Database,
  deps: { clock: Clock },
  completion: TokenCompletion,
  options: { beforeCommit?: () => void } = {},
): Promise<ServiceResult<{ executionId: string }>> {
  if ("tokenId" in completion && !tokenIdPattern.test(completion.tokenId)) {
    return fail.notFound({ message: tokenNotFoundMessage });
  }
  const data = checkData(completion.data);
  if (!data.ok) return data;
  const target =
    "tokenId" in completion
      ? sql`token_hash = ${tokenHashOf(completion.tokenId)}`
      : sql`execution_id = ${completion.executionId} and name = ${completion.name}`;
  const targetColumns =
    "tokenId" in completion
      ? eq(waitTokens.tokenHash, tokenHashOf(completion.tokenId))
      : and(eq(waitTokens.executionId, completion.executionId), eq(waitTokens.name, completion.name));
  return db.transaction(async (tx): Promise<ServiceResult<{ executionId: string }>> => {
    const now = deps.clock.now();
    const at = now.toISOString();
    const ofProject = completion.projectId === undefined ? sql`` : sql` and project_id = ${completion.projectId}`;
    const completedBy = completion.completedBy ?? null;
    const byWhom = completedBy === null ? sql` and approvers = 'anyone'` : sql``;
    const [completed] = await sqlRows<{ execution_id: string; span_id: string; name: string }>(
      tx,
      sql`update wait_tokens set status = 'completed', data = ${jsonParam(data.value)}::jsonb,
          finished_at = ${at}::timestamptz, completed_by_account_id = ${completedBy}
        where ${target} and status = 'pending' and expires_at > ${at}::timestamptz${ofProject}${byWhom}
          and child_execution_id is null and event_name is null
        returning execution_id, span_id, name`,
    );
    if (completed === undefined) {
      const [existing] = await tx
        .select({
          status: waitTokens.status,
          projectId: waitTokens.projectId,
          approvers: waitTokens.approvers,
          expiresAt: waitTokens.expiresAt,
        })
        .from(waitTokens)
        .where(targetColumns);
      const visible = existing !== undefined && (completion.projectId ?? existing.projectId) === existing.projectId;
      if (visible && existing.status === "completed") return fail.conflict(tokenCompletedMessage);
      const live = visible && existing.status === "pending" && existing.expiresAt.getTime() > now.getTime();
      if (live && existing.approvers === "members" && completedBy === null) {
        return fail.forbidden(membersOnlyTokenMessage);
      }
      return fail.notFound({ message: tokenNotFoundMessage });
    }
    await tx.execute(
      closeSpans([
        spanEnds(sql`(select ${completed.span_id}::text as span_id) as completed`, {
          spanId: sql`span_id`,
          endTime: sql`${at}::timestamptz`,
          ...endedWith({ code: "ok" }),
        }),
      ]),
    );
    await resumeWaiting(tx, { executionId: completed.execution_id, now });
    if (completion.audit !== undefined) {
      const approved = (data.value as { approved?: unknown } | null)?.approved;
      await recordAuditEvent(
        tx,
        { clock: deps.clock, ids: completion.audit.ids },
        {
          action: "token.completed",
          targetType: "execution",
          targetId: completed.execution_id,
          workspaceId: completion.audit.workspaceId,
          actor: completion.audit.actor,
          data: { token: completed.name, ...(typeof approved === "boolean" ? { approved } : {}) },
        },
      );
    }
    options.beforeCommit?.();
    return ok({ executionId: completed.execution_id });
  });
}
