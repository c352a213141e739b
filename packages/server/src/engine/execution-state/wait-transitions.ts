import { type SQL, sql } from "drizzle-orm";
import type { Database, Transaction } from "../../db/database.ts";
import type { WaitTokenDetails, WaitTokenStatus } from "../../db/schema/index.ts";
import { executionsChannel } from "../channels.ts";
import { jsonParam, relaxTransactionCommit, sqlRows } from "../sql-rows.ts";
import { type AttemptClose, endAttempt, type Lease } from "./attempt-transitions.ts";
import { noEndStatementParts } from "./end-statement-parts.ts";
import { type TransitionName, transitions } from "./execution-states.ts";
import { closeSpans, endedWith, insertSpans, spanEnds } from "./span-writes.ts";
import { tokenSpanStatus } from "./token-writes.ts";
import { allowedBy, statusIn } from "./transition-condition.ts";

/**
 * Wait tokens from the engine's side: a running execution creates one (`ctx.createToken`, running →
 * running, like a step) or waits for one (`ctx.waitForToken`: the `wait` transition, running →
 * waiting, unless the token has already ended). A completion makes the waiting execution due at
 * once (`resumeWaiting`); a timeout makes it due by its `run_at`, the token's expiry. Either way the
 * claim's `wake` takes it, and the token's end is read when the execution is replayed.
 */

/** A token as the worker asks for it; when one of that name exists, it is kept and these are ignored. */
export interface NewToken {
  name: string;
  /** Random input of the token id's HMAC (see `engine/wait-token-ids.ts`), and the id's SHA-256. */
  nonce: string;
  tokenHash: string;
  spanId: string;
  now: Date;
  expiresAt: Date;
  /** What it shows its approver, and whether only a signed-in member of the workspace may answer it. */
  details?: WaitTokenDetails | undefined;
}

/** A token of the execution as stored. */
export interface TokenRow {
  name: string;
  nonce: string;
  status: WaitTokenStatus;
  data: unknown;
  expires_at: Date | string;
}

const holderOf = (lease: Lease) => ({ workerId: lease.workerId });

/**
 * Ends the pending tokens `where` selects whose expiry has come (`timed_out`), with their spans.
 * Run before a token's state is read, so that a completion racing the timeout either commits
 * first (and is seen) or finds the token expired (and is refused): never both.
 */
export async function expireTokens(db: Database | Transaction, where: SQL, now: Date): Promise<void> {
  const at = now.toISOString();
  await db.execute(
    sql`with expired as (update wait_tokens set status = 'timed_out', finished_at = ${at}::timestamptz
        where ${where} and status = 'pending' and expires_at <= ${at}::timestamptz returning span_id)
      ${closeSpans([
        spanEnds(sql`expired`, {
          spanId: sql`span_id`,
          endTime: sql`${at}::timestamptz`,
          ...endedWith(tokenSpanStatus.timedOut),
        }),
      ])}`,
  );
}

/** Inserts the token (and its span, under the execution's) unless it exists; `false` when the lease is not held. */
async function insertToken(tx: Transaction, lease: Lease, transition: TransitionName, token: NewToken) {
  const now = token.now.toISOString();
  const [row] = await sqlRows<{ owned: number }>(
    tx,
    sql`with owner as (select id, project_id, workflow, trace_id, execution_span_id from executions
        where id = ${lease.executionId} and ${allowedBy(transition, holderOf(lease))}),
      inserted as (insert into wait_tokens
          (execution_id, name, project_id, token_hash, nonce, status, data, span_id, created_at, expires_at, finished_at,
            title, description, fields, approvers)
        select id, ${token.name}, project_id, ${token.tokenHash}, ${token.nonce}, 'pending', null, ${token.spanId},
          ${now}::timestamptz, ${token.expiresAt.toISOString()}::timestamptz, null,
          ${token.details?.title ?? null}, ${token.details?.description ?? null},
          ${token.details?.fields === undefined ? null : jsonParam(token.details.fields)}::jsonb,
          ${token.details?.approvers ?? "anyone"}
        from owner on conflict do nothing returning 1),
      token_span as (${insertSpans(sql`select ${token.spanId}, trace_id, execution_span_id, project_id, id, workflow,
          ${`token ${token.name}`}, 'token', ${now}::timestamptz, null,
          jsonb_build_object('weft.token.name', ${token.name}::text), 'unset', null
        from owner where exists (select 1 from inserted)`)} returning 1)
      select (select count(*)::int from owner) as owned, (select count(*) from token_span) as spans`,
  );
  return (row?.owned ?? 0) > 0;
}

/** The token, locked until the transaction ends, after ending it if it has expired. */
async function lockedToken(tx: Transaction, executionId: string, name: string, now: Date): Promise<TokenRow> {
  const where = sql`execution_id = ${executionId} and name = ${name}`;
  await expireTokens(tx, where, now);
  const [row] = await sqlRows<TokenRow>(
    tx,
    sql`select name, nonce, status, data, expires_at from wait_tokens where ${where} for update`,
  );
  if (row === undefined) throw new Error(`the token "${name}" of ${executionId} was not stored`);
  return row;
}

export type TokenCreated = { outcome: "refused" } | { outcome: "taken"; token: TokenRow };

/** `ctx.createToken`: the token is stored (or the stored one returned); the execution keeps running. */
export function createToken(db: Database, lease: Lease, token: NewToken): Promise<TokenCreated> {
  return db.transaction(async (tx) => {
    await tx.execute(relaxTransactionCommit);
    if (!(await insertToken(tx, lease, "recordStep", token))) return { outcome: "refused" };
    return { outcome: "taken", token: await lockedToken(tx, lease.executionId, token.name, token.now) };
  });
}

/** `waiting`: the execution let go of its worker. `ended`: the token had already ended; the execution goes on. */
export type WaitOutcome =
  | { outcome: "refused" }
  | { outcome: "waiting"; token: TokenRow }
  | { outcome: "ended"; token: TokenRow };

/**
 * `ctx.waitForToken`: stores the token if it is new; if it is still pending, ends the attempt and
 * leaves the execution `waiting` until the token's expiry (or at once, when a cancel was requested,
 * so that the next claim cancels it). The token row stays locked until the commit, so a completion
 * either comes first (and is returned as `ended`) or finds the execution waiting and resumes it.
 */
export function wait(db: Database, lease: Lease, close: AttemptClose, token: NewToken): Promise<WaitOutcome> {
  // A synchronous commit, as a sleep's: a wait lost to a crash would be waited anew, its time again.
  return db.transaction(async (tx): Promise<WaitOutcome> => {
    if (!(await insertToken(tx, lease, "wait", token))) return { outcome: "refused" };
    const stored = await lockedToken(tx, lease.executionId, token.name, close.now);
    if (stored.status !== "pending") return { outcome: "ended", token: stored };
    const outcome = await endAttempt(
      tx,
      // No part joins an end that leaves the execution unfinished.
      { transition: "wait", holder: holderOf(lease), durable: true, parts: noEndStatementParts },
      { executionId: lease.executionId, close, values: { runAt: new Date(stored.expires_at) } },
    );
    return outcome === "taken" ? { outcome: "waiting", token: stored } : { outcome: "refused" };
  });
}

/**
 * A completed token makes its execution due now if it waits (a running one reads the completion
 * when it reaches `waitForToken`), and tells the workers. Not a transition: the claim's `wake` is.
 */
export async function resumeWaiting(tx: Transaction, request: { executionId: string; now: Date }): Promise<void> {
  await tx.execute(
    sql`update executions set run_at = ${request.now.toISOString()}::timestamptz
      where id = ${request.executionId} and ${statusIn([transitions.wait.to])}`,
  );
  await tx.execute(
    sql`select pg_notify(${executionsChannel}, coalesce((select w.billing_account_id from executions e
      join projects p on p.id = e.project_id join workspaces w on w.id = p.workspace_id
      where e.id = ${request.executionId}), ''))`,
  );
}
