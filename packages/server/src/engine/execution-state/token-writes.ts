import { type SQL, sql } from "drizzle-orm";
import { endedWith, type SpanEnds, type SpanStatus, spanEnds } from "./span-writes.ts";

/** What a token's span says when the token ends without a completion. */
export const tokenSpanStatus = {
  timedOut: { code: "error", message: "timeout" },
  closed: { code: "error", message: "the execution ended" },
} as const satisfies Record<string, SpanStatus>;

/**
 * The CTE of a final transition's statement (after `changed`, which returns each ended execution's
 * id and `ended_at`) that makes the ended executions' pending tokens `closed`, so that nobody can
 * complete them any more, and their spans, for the statement's `closeSpans` to end with them.
 */
export function closeTokensOfEnded(): { cte: SQL; spans: SpanEnds } {
  return {
    cte: sql`closed_tokens as (update wait_tokens set status = 'closed', finished_at = changed.ended_at
      from changed where wait_tokens.execution_id = changed.id and wait_tokens.status = 'pending'
      returning wait_tokens.span_id, changed.ended_at)`,
    spans: spanEnds(sql`closed_tokens`, {
      spanId: sql`span_id`,
      endTime: sql`ended_at`,
      ...endedWith(tokenSpanStatus.closed),
    }),
  };
}
