import { sql } from "drizzle-orm";
import type { Database, Transaction } from "../../db/database.ts";
import { jsonParam, sqlRows } from "../sql-rows.ts";
import { textArray } from "../sql-text-array.ts";
import { type AttemptClose, endAttempt, type Lease } from "./attempt-transitions.ts";
import { noEndStatementParts } from "./end-statement-parts.ts";
import { insertSpans } from "./span-writes.ts";
import { allowedBy } from "./transition-condition.ts";
import { expireTokens, type NewToken, type TokenRow, type WaitOutcome } from "./wait-transitions.ts";

/**
 * `ctx.waitForEvent`: a wait token that no URL completes, only a send of the event (see
 * `events/resolve-event-waits.ts`). Stored with the event's name and the path and value it must
 * hold (`{}` and `null` for any event of the name), and waited for as `wait` waits for a token:
 * the `wait` transition (running → waiting) in the same transaction, the row locked to the commit,
 * the token's expiry as the execution's `run_at`, so a timeout resumes it with `{ ok: false }`.
 */
export interface EventWait {
  name: string;
  /** `#>` segments of the match path; empty for none. */
  matchPath: readonly string[];
  /** The value the event must hold there; null without a match. */
  matchValue: string | number | boolean | null;
}

/** The token fields an event wait is stored with (it has no approval details). */
export type EventWaitToken = Pick<NewToken, "name" | "nonce" | "tokenHash" | "spanId" | "now" | "expiresAt">;

const holderOf = (lease: Lease) => ({ workerId: lease.workerId });

/** Inserts the wait (and its span) unless one of that name exists; `false` when the lease is not held. */
async function insertEventWait(
  tx: Transaction,
  lease: Lease,
  token: EventWaitToken,
  event: EventWait,
): Promise<boolean> {
  const now = token.now.toISOString();
  const [row] = await sqlRows<{ owned: number }>(
    tx,
    sql`with owner as (select id, project_id, workflow, trace_id, execution_span_id from executions
        where id = ${lease.executionId} and ${allowedBy("wait", holderOf(lease))}),
      inserted as (insert into wait_tokens
          (execution_id, name, project_id, token_hash, nonce, status, data, span_id, created_at, expires_at, finished_at,
            event_name, event_match_path, event_match_value)
        select id, ${token.name}, project_id, ${token.tokenHash}, ${token.nonce}, 'pending', null, ${token.spanId},
          ${now}::timestamptz, ${token.expiresAt.toISOString()}::timestamptz, null,
          ${event.name}, ${textArray(event.matchPath)}, ${jsonParam(event.matchValue)}::jsonb
        from owner on conflict do nothing returning 1),
      token_span as (${insertSpans(sql`select ${token.spanId}, trace_id, execution_span_id, project_id, id, workflow,
          ${`event ${token.name}`}, 'token', ${now}::timestamptz, null,
          jsonb_build_object('weft.token.name', ${token.name}::text, 'weft.event.name', ${event.name}::text),
          'unset', null
        from owner where exists (select 1 from inserted)`)} returning 1)
      select (select count(*)::int from owner) as owned, (select count(*) from token_span) as spans`,
  );
  return (row?.owned ?? 0) > 0;
}

/**
 * Stores the wait if it is new and, while it is pending, ends the attempt leaving the execution
 * `waiting`; a wait a send has completed (or that timed out) meanwhile is answered `ended`.
 */
export function waitForEvent(
  db: Database,
  lease: Lease,
  close: AttemptClose,
  token: EventWaitToken,
  event: EventWait,
): Promise<WaitOutcome> {
  // A synchronous commit, as a token's wait: a wait lost to a crash would be waited anew.
  return db.transaction(async (tx): Promise<WaitOutcome> => {
    if (!(await insertEventWait(tx, lease, token, event))) return { outcome: "refused" };
    const where = sql`execution_id = ${lease.executionId} and name = ${token.name}`;
    await expireTokens(tx, where, close.now);
    const [stored] = await sqlRows<TokenRow>(
      tx,
      sql`select name, nonce, status, data, expires_at from wait_tokens where ${where} for update`,
    );
    if (stored === undefined) throw new Error(`the wait "${token.name}" of ${lease.executionId} was not stored`);
    if (stored.status !== "pending") return { outcome: "ended", token: stored };
    const outcome = await endAttempt(
      tx,
      { transition: "wait", holder: holderOf(lease), durable: true, parts: noEndStatementParts },
      { executionId: lease.executionId, close, values: { runAt: new Date(stored.expires_at) } },
    );
    return outcome === "taken" ? { outcome: "waiting", token: stored } : { outcome: "refused" };
  });
}
