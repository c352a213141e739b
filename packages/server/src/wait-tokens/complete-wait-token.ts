import { eq, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { waitTokens } from "../db/schema/index.ts";
import { resumeWaiting } from "../engine/execution-state/index.ts";
import { closeSpans, endedWith, spanEnds } from "../engine/execution-state/span-writes.ts";
import { formatLimit, maxTokenDataBytes } from "../engine/limits.ts";
import { jsonParam, sqlRows } from "../engine/sql-rows.ts";
import { tokenHashOf, tokenIdPattern } from "../engine/wait-token-ids.ts";
import type { Clock } from "../shared/clock.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { checkStorableJson, describeUnstorable } from "../shared/storable-json.ts";
import { tokenNotFoundMessage } from "./find-wait-token.ts";

export const tokenCompletedMessage = "This wait token has already been completed.";

export interface TokenCompletion {
  tokenId: string;
  /** What `ctx.waitForToken` returns as `data`; `undefined` is stored as null. */
  data: unknown;
  /** When given (the API, after its access check), a token of another project is not found. */
  projectId?: string | undefined;
}

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
  if (!tokenIdPattern.test(completion.tokenId)) return fail.notFound({ message: tokenNotFoundMessage });
  const data = checkData(completion.data);
  if (!data.ok) return data;
  const tokenHash = tokenHashOf(completion.tokenId);
  return db.transaction(async (tx): Promise<ServiceResult<{ executionId: string }>> => {
    const now = deps.clock.now();
    const at = now.toISOString();
    const ofProject = completion.projectId === undefined ? sql`` : sql` and project_id = ${completion.projectId}`;
    const [completed] = await sqlRows<{ execution_id: string; span_id: string }>(
      tx,
      sql`update wait_tokens set status = 'completed', data = ${jsonParam(data.value)}::jsonb,
          finished_at = ${at}::timestamptz
        where token_hash = ${tokenHash} and status = 'pending' and expires_at > ${at}::timestamptz${ofProject}
        returning execution_id, span_id`,
    );
    if (completed === undefined) {
      const [existing] = await tx
        .select({ status: waitTokens.status, projectId: waitTokens.projectId })
        .from(waitTokens)
        .where(eq(waitTokens.tokenHash, tokenHash));
      const visible = existing !== undefined && (completion.projectId ?? existing.projectId) === existing.projectId;
      if (visible && existing.status === "completed") return fail.conflict(tokenCompletedMessage);
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
    options.beforeCommit?.();
    return ok({ executionId: completed.execution_id });
  });
}
