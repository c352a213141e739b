import { sql } from "drizzle-orm";
import type { Transaction } from "../../db/database.ts";
import { sqlRows } from "../sql-rows.ts";
import { textArray } from "../sql-text-array.ts";
import type { Admission } from "./flow-keys.ts";

/** A row about to be inserted as the enqueue made it, with what its flow control must settle first. */
export interface AdmissionCandidate {
  id: string;
  projectId: string;
  workflow: string;
  input: unknown;
  /** The `cancelOn` keys of `input` (`cancel-keys.ts`), which travel with it when a debounce moves it. */
  cancelKeys: string[] | null;
  runAt: Date;
  deploymentId: string;
  admission: Admission | undefined;
}

/** What became of one trigger: its own new execution, one already queued that it moved, or a skip. */
export type AdmissionOutcome =
  /** Inserted, with the candidate's `input` and `runAt` as admission left them. */
  | { kind: "insert" }
  | { kind: "skip"; reason: string }
  /** Merged into `executionId` (a queued execution of the same debounce key), with this input and `runAt`. */
  | { kind: "debounced"; executionId: string };

export const rateLimitedErrorName = "RateLimitedError";

/** The rate-limit window's upsert: the start is let through, and counted, only while the key is within its limit. */
async function withinRateLimit(
  tx: Transaction,
  now: Date,
  candidate: AdmissionCandidate,
  rate: NonNullable<Admission["rateLimit"]>,
): Promise<boolean> {
  // The generic cell rate algorithm: each start moves `next_at` on by period/limit from where it
  // stood (or from now, if that is later); a start that would move it past now + period is over
  // the limit, and leaves it where it was. So `limit` starts may come at once, then one per period/limit.
  const emissionMs = rate.periodMs / rate.limit;
  const rows = await sqlRows<{ next_at: Date }>(
    tx,
    sql`insert into flow_control_windows as w (project_id, workflow, kind, key, next_at)
      values (${candidate.projectId}, ${candidate.workflow}, 'rateLimit', ${rate.key},
        ${now.toISOString()}::timestamptz + ${emissionMs}::float8 * interval '1 millisecond')
      on conflict (project_id, workflow, kind, key) do update
        set next_at = greatest(w.next_at, ${now.toISOString()}::timestamptz) + ${emissionMs}::float8 * interval '1 millisecond'
        where greatest(w.next_at, ${now.toISOString()}::timestamptz) + ${emissionMs}::float8 * interval '1 millisecond'
          <= ${now.toISOString()}::timestamptz + ${rate.periodMs}::float8 * interval '1 millisecond'
      returning w.next_at`,
  );
  return rows.length > 0;
}

/** The throttle window's upsert: when this start may come, one period/limit after the key's previous one. */
async function throttledRunAt(
  tx: Transaction,
  now: Date,
  candidate: AdmissionCandidate,
  rate: NonNullable<Admission["throttle"]>,
): Promise<Date> {
  const emissionMs = rate.periodMs / rate.limit;
  const [row] = await sqlRows<{ run_at: Date | string }>(
    tx,
    sql`insert into flow_control_windows as w (project_id, workflow, kind, key, next_at)
      values (${candidate.projectId}, ${candidate.workflow}, 'throttle', ${rate.key},
        ${now.toISOString()}::timestamptz + ${emissionMs}::float8 * interval '1 millisecond')
      on conflict (project_id, workflow, kind, key) do update
        set next_at = greatest(w.next_at, ${now.toISOString()}::timestamptz) + ${emissionMs}::float8 * interval '1 millisecond'
      returning w.next_at - ${emissionMs}::float8 * interval '1 millisecond' as run_at`,
  );
  if (row === undefined) throw new Error("the throttle's upsert returned no row");
  return new Date(row.run_at);
}

/**
 * Moves the queued execution of a debounce key, if there is one, to this trigger's input and time,
 * its time to live with it: one that never started (`executions_debounce_idx`), not one queued again
 * for a retry.
 */
async function debounceInto(tx: Transaction, candidate: AdmissionCandidate, key: string): Promise<string | undefined> {
  const [row] = await sqlRows<{ id: string }>(
    tx,
    sql`update executions set input = ${JSON.stringify(candidate.input ?? null)}::jsonb,
        cancel_keys = ${candidate.cancelKeys === null ? sql`null` : textArray(candidate.cancelKeys)},
        run_at = greatest(run_at, ${candidate.runAt.toISOString()}::timestamptz), deployment_id = ${candidate.deploymentId},
        expires_at = expires_at + (greatest(run_at, ${candidate.runAt.toISOString()}::timestamptz) - run_at)
      where project_id = ${candidate.projectId} and workflow = ${candidate.workflow} and debounce_key = ${key}
        and status = 'queued' and started_at is null
      returning id`,
  );
  return row?.id;
}

function lockOrder(candidate: AdmissionCandidate, key: string): string {
  return JSON.stringify([candidate.projectId, candidate.workflow, key]);
}

function sortedBy<T>(entries: T[], order: (entry: T) => string): T[] {
  return entries.sort((a, b) => {
    const left = order(a);
    const right = order(b);
    return left < right ? -1 : left > right ? 1 : 0;
  });
}

/**
 * Settles the throttles, rate limits and debounces of new executions in the caller's transaction,
 * before their rows are written: per candidate id, whether to insert it (with the `input` and
 * `runAt` left on the candidate: a later trigger's, a throttle's later time), skip
 * it, or fold it into a queued execution of its debounce key. Each kind is settled for all the
 * candidates in the order of its keys, rate limits first, debounces, then throttles, so that two
 * transactions take the windows' row locks and the debounce locks in the same order and cannot
 * deadlock. A debounced trigger that folds into another costs no throttle start; a skipped one
 * moves no window.
 */
export async function admit(
  tx: Transaction,
  now: Date,
  candidates: readonly AdmissionCandidate[],
): Promise<Map<string, AdmissionOutcome>> {
  const outcomes = new Map<string, AdmissionOutcome>();
  for (const candidate of candidates) outcomes.set(candidate.id, { kind: "insert" });
  const governed = candidates.filter((candidate) => candidate.admission !== undefined);
  if (governed.length === 0) return outcomes;
  const pending = (candidate: AdmissionCandidate) => outcomes.get(candidate.id)?.kind === "insert";

  const limited = governed.flatMap((candidate) =>
    candidate.admission?.rateLimit === undefined ? [] : [{ candidate, rate: candidate.admission.rateLimit }],
  );
  for (const { candidate, rate } of sortedBy(limited, (entry) => lockOrder(entry.candidate, entry.rate.key))) {
    if (!(await withinRateLimit(tx, now, candidate, rate))) {
      outcomes.set(candidate.id, {
        kind: "skip",
        reason: `skipped: the workflow's rateLimit allows ${rate.limit} starts per ${rate.periodMs} ms${
          rate.key === "null" ? "" : ` for the key ${rate.key}`
        }`,
      });
    }
  }

  const debounced = governed.flatMap((candidate) =>
    candidate.admission?.debounce === undefined || !pending(candidate)
      ? []
      : [{ candidate, key: candidate.admission.debounce.key }],
  );
  /** The candidate of this batch that holds each debounce key, once one does. */
  const holders = new Map<string, AdmissionCandidate>();
  for (const { candidate, key } of sortedBy(debounced, (entry) => lockOrder(entry.candidate, entry.key))) {
    const order = lockOrder(candidate, key);
    const holder = holders.get(order);
    if (holder !== undefined) {
      // An earlier trigger of the same batch queued the key's execution: this one moves it, as
      // it would the stored row. Candidates keep their order within a key, so the last input wins.
      holder.input = candidate.input;
      holder.cancelKeys = candidate.cancelKeys;
      holder.runAt = candidate.runAt;
      outcomes.set(candidate.id, { kind: "debounced", executionId: holder.id });
      continue;
    }
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`debounce:${order}`}, 0))`);
    const existing = await debounceInto(tx, candidate, key);
    if (existing === undefined) holders.set(order, candidate);
    else outcomes.set(candidate.id, { kind: "debounced", executionId: existing });
  }

  const throttled = governed.flatMap((candidate) =>
    candidate.admission?.throttle === undefined || !pending(candidate)
      ? []
      : [{ candidate, rate: candidate.admission.throttle }],
  );
  for (const { candidate, rate } of sortedBy(throttled, (entry) => lockOrder(entry.candidate, entry.rate.key))) {
    const earliest = await throttledRunAt(tx, now, candidate, rate);
    candidate.runAt = new Date(Math.max(earliest.getTime(), candidate.runAt.getTime()));
  }
  return outcomes;
}
