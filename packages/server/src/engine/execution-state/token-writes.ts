import { type SQL, sql } from "drizzle-orm";
import type { SpanEnd, SpanStatus } from "./span-writes.ts";

/** What a token's span says when the token ends without a completion. */
export const tokenSpanStatus = {
  timedOut: { code: "error", message: "timeout" },
  closed: { code: "error", message: "the execution ended" },
} as const satisfies Record<string, SpanStatus>;

/**
 * The CTE of a final transition's statement (after `changed`) that makes the ended execution's
 * pending tokens `closed`, so that nobody can complete them any more, and their spans, for the
 * statement's `closeSpans` to end with it.
 */
export function closeTokensOfEnded(now: string): { cte: SQL; spans: SpanEnd } {
  return {
    cte: sql`closed_tokens as (update wait_tokens set status = 'closed', finished_at = ${now}::timestamptz
      where execution_id = (select id from changed) and status = 'pending' returning span_id)`,
    spans: { ids: sql`array(select span_id from closed_tokens)`, status: tokenSpanStatus.closed },
  };
}
