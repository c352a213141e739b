import { type SQL, sql } from "drizzle-orm";
import { closeSpan, type SpanStatus } from "./span-writes.ts";

/** What a token's span says when the token ends without a completion. */
export const tokenSpanStatus = {
  timedOut: { code: "error", message: "timeout" },
  closed: { code: "error", message: "the execution ended" },
} as const satisfies Record<string, SpanStatus>;

/**
 * CTEs of a final transition's statement (after `changed`): the ended execution's pending tokens
 * become `closed`, so that nobody can complete them any more, and their spans end with it.
 */
export function closeTokensOfEnded(now: string): SQL {
  return sql`closed_tokens as (update wait_tokens set status = 'closed', finished_at = ${now}::timestamptz
      where execution_id = (select id from changed) and status = 'pending' returning span_id),
    closed_token_spans as (${closeSpan(sql`span_id in (select span_id from closed_tokens)`, now, tokenSpanStatus.closed)} returning 1)`;
}
