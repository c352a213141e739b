import { type Database, finalStates, isFinal } from "@weft/server/internals";
import { sql } from "drizzle-orm";
import type { LoadRecord, Surface } from "./marked-load.ts";

interface ExecutionRow {
  id: string;
  status: string;
  marker: string | undefined;
  /** Why a failed execution failed (its error's name), and how often a dead worker's lease was taken over. */
  errorName: string | undefined;
  leaseExpiries: number;
}

async function rowsOf<T>(db: Database, query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}

/** The project's executions with the marker of the request that created each. */
export async function readExecutions(db: Database, projectId: string): Promise<ExecutionRow[]> {
  const rows = await rowsOf<{
    id: string;
    status: string;
    marker: string | null;
    error_name: string | null;
    lease_expiries: number;
  }>(
    db,
    sql`select id, status, coalesce(input->>'marker', input->'body'->>'marker') as marker,
               error->>'name' as error_name, lease_expiries
        from executions where project_id = ${projectId}`,
  );
  return rows.map((row) => ({
    id: row.id,
    status: row.status,
    marker: row.marker ?? undefined,
    errorName: row.error_name ?? undefined,
    leaseExpiries: Number(row.lease_expiries),
  }));
}

/** How long after the load every execution must be final: generous, the machine may be shared and busy. */
export const terminalBoundMs = 180_000;

/** The ingress budget: a request is answered (accepted or refused) within it, or it hangs. */
export const hangMs = 5_000;

/**
 * Polls `countOpen` (the executions not yet final) from the end of the load until it answers 0 or
 * `boundMs` passes; returns how long it took. It does not end before `hangMs`: autocannon ends a run
 * without waiting for the answers of the requests it has sent, and the platform still serves those,
 * so an execution can appear after the load is over, until the ingress budget has passed.
 */
export async function waitForTerminal(
  countOpen: () => Promise<number>,
  boundMs: number,
): Promise<{ elapsedMs: number }> {
  const loadEnded = Date.now();
  for (;;) {
    const open = await countOpen();
    const elapsedMs = Date.now() - loadEnded;
    if ((open === 0 && elapsedMs >= hangMs) || elapsedMs > boundMs) return { elapsedMs };
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The executions of the project not yet final, read from the database. */
export async function openExecutionCount(db: Database, projectId: string): Promise<number> {
  return (await readExecutions(db, projectId)).filter((row) => !isFinal(row.status as never)).length;
}

/** `<marker>/s<i>` → the stored result of that step (`s<i>#<run>` from the counter). */
async function storedStepResults(db: Database, projectId: string): Promise<Map<string, unknown>> {
  const rows = await rowsOf<{ marker: string | null; name: string; value: unknown }>(
    db,
    sql`select coalesce(e.input->>'marker', e.input->'body'->>'marker') as marker, s.name, s.result->'value' as value
        from execution_steps s join executions e on e.id = s.execution_id
        where e.project_id = ${projectId} and s.kind = 'step'`,
  );
  return new Map(rows.map((row) => [`${row.marker}/${row.name}`, row.value]));
}

/** Up to 5 executions not final, each with what decides who takes it up next: its lease, due time and steps. */
async function openExecutionStates(db: Database, projectId: string): Promise<string[]> {
  const rows = await rowsOf<Record<string, unknown>>(
    db,
    sql`select e.id, e.status, e.attempt, e.run_at, e.lease_owner, e.lease_expires_at, e.cancel_requested_at,
               e.started_at, now() as read_at,
               (select string_agg(s.kind || ':' || s.name || coalesce('@' || s.wake_at::text, ''), ',' order by s.sequence)
                  from execution_steps s where s.execution_id = e.id) as steps
        from executions e
        where e.project_id = ${projectId} and e.status not in (${sql.join(
          finalStates.map((state) => sql`${state}`),
          sql`, `,
        )})
        limit 5`,
  );
  return rows.map((row) => JSON.stringify(row));
}

/**
 * Completed steps run again: a step run after a later step of its execution had begun (the
 * workflow had gone on, so the step's result had been reported stored), or a step whose stored
 * result (the counter's answer, `<marker>/s<i>#<run>`) is not its last run.
 */
function rerunCompletedSteps(runs: string[], stored: Map<string, unknown>, hits: Map<string, number>): string[] {
  const reruns = new Set<string>();
  const highestBegun = new Map<string, number>();
  for (const run of runs) {
    const [marker = "", step = ""] = run.split("/");
    const index = Number(step.slice(1));
    if ((highestBegun.get(marker) ?? 0) > index) reruns.add(run);
    highestBegun.set(marker, Math.max(highestBegun.get(marker) ?? 0, index));
  }
  for (const [name, value] of stored) {
    const runsOfStep = hits.get(name) ?? 0;
    if (typeof value === "string" && value !== `${name}#${runsOfStep}`) reruns.add(name);
  }
  return [...reruns];
}

export interface FaultFigures {
  acknowledged: number;
  acknowledgedBySurface: Record<Surface, number>;
  acknowledgedWithoutExecution: number;
  acknowledgedWithSeveral: number;
  executions: number;
  unacknowledgedExecutions: number;
  notTerminal: number;
  failed: number;
  terminalAfterMs: number;
  stepsRun: number;
  completedStepsRerun: number;
  /** The most takeovers of one execution from a dead worker (`lease_expiries`). */
  mostTakeovers: number;
  apiRetries: number;
  apiDuplicates: number;
  answers5xx: Record<Surface, number>;
  /** 5xx answers other than a 503 with Retry-After (a refusal to send again): each is a bug. */
  unexpected5xx: number;
  unanswered: number;
  timedOut: number;
}

export async function collectFigures(
  db: Database,
  projectId: string,
  record: LoadRecord,
  counter: { runs: string[]; hits: Map<string, number> },
  terminal: { elapsedMs: number },
): Promise<{ figures: FaultFigures; samples: string[] }> {
  const rows = await readExecutions(db, projectId);
  const byMarker = new Map<string, ExecutionRow[]>();
  for (const row of rows) {
    if (row.marker === undefined) continue;
    byMarker.set(row.marker, [...(byMarker.get(row.marker) ?? []), row]);
  }
  const samples: string[] = [];
  const acknowledgedBySurface: Record<Surface, number> = { webhook: 0, form: 0, api: 0 };
  let withoutExecution = 0;
  let withSeveral = 0;
  for (const [marker, surface] of record.acknowledged) {
    acknowledgedBySurface[surface] += 1;
    const found = byMarker.get(marker)?.length ?? 0;
    if (found === 0) {
      withoutExecution += 1;
      samples.push(`acknowledged ${surface} ${marker} has no execution`);
    }
    if (found > 1) {
      withSeveral += 1;
      samples.push(`acknowledged ${surface} ${marker} has ${found} executions`);
    }
  }
  let apiDuplicates = 0;
  for (const [marker, surface] of record.acknowledged) {
    if (surface !== "api") continue;
    const found = byMarker.get(marker)?.length ?? 0;
    const answered = record.apiExecutionIds.get(marker)?.size ?? 0;
    apiDuplicates += Math.max(0, found - 1) + Math.max(0, answered - 1);
  }
  for (const open of await openExecutionStates(db, projectId)) samples.push(`not final: ${open}`);
  const stored = await storedStepResults(db, projectId);
  const reruns = rerunCompletedSteps(counter.runs, stored, counter.hits);
  for (const rerun of reruns.slice(0, 5)) samples.push(`completed step run again: ${rerun}`);
  for (const row of rows.filter((each) => each.status !== "succeeded" && isFinal(each.status as never)).slice(0, 5)) {
    samples.push(`${row.status}: ${row.id} (${row.errorName ?? "no error"}, ${row.leaseExpiries} takeovers)`);
  }
  const answers5xx: Record<Surface, number> = { webhook: 0, form: 0, api: 0 };
  for (const answer of record.answers) if (answer.status >= 500) answers5xx[answer.surface] += 1;
  for (const answer of record.answers.filter((each) => each.status >= 500 && each.status !== 503).slice(0, 5)) {
    samples.push(`${answer.surface} ${answer.marker} answered ${answer.status}`);
  }
  for (const answer of record.answers.filter((each) => each.answeredAt - each.sentAt > 5_000).slice(0, 5)) {
    samples.push(
      `${answer.surface} ${answer.marker} answered ${answer.status} after ${answer.answeredAt - answer.sentAt} ms`,
    );
  }
  return {
    figures: {
      acknowledged: record.acknowledged.size,
      acknowledgedBySurface,
      acknowledgedWithoutExecution: withoutExecution,
      acknowledgedWithSeveral: withSeveral,
      executions: rows.length,
      unacknowledgedExecutions: rows.filter((row) => row.marker !== undefined && !record.acknowledged.has(row.marker))
        .length,
      notTerminal: rows.filter((row) => !isFinal(row.status as never)).length,
      failed: rows.filter((row) => row.status !== "succeeded" && isFinal(row.status as never)).length,
      terminalAfterMs: terminal.elapsedMs,
      stepsRun: counter.runs.length,
      completedStepsRerun: reruns.length,
      mostTakeovers: rows.reduce((most, row) => Math.max(most, row.leaseExpiries), 0),
      apiRetries: record.apiRetries,
      apiDuplicates,
      answers5xx,
      unexpected5xx: record.answers.filter(
        (answer) => answer.status >= 500 && !(answer.status === 503 && answer.retryAfter),
      ).length,
      unanswered: record.unanswered,
      timedOut: record.timedOut,
    },
    samples,
  };
}

/**
 * The answers to requests sent while PostgreSQL restarted: refusals must say when to send again (503
 * with Retry-After, or 429 with Retry-After once the backlog the restart held back waits past
 * `WEFT_MAX_QUEUE_DELAY`), none late.
 */
export function restartWindowFigures(record: LoadRecord, window: { from: number; to: number }) {
  const during = record.answers.filter((answer) => answer.sentAt >= window.from && answer.sentAt <= window.to);
  const refused = during.filter((answer) => answer.status >= 300);
  const retryLater = (answer: (typeof refused)[number]) =>
    (answer.status === 503 || answer.status === 429) && answer.retryAfter;
  return {
    answered: during.length,
    accepted: during.length - refused.length,
    refused503WithRetryAfter: refused.filter((answer) => answer.status === 503 && answer.retryAfter).length,
    refusedBacklogged: refused.filter((answer) => answer.status === 429 && answer.retryAfter).length,
    refusedOtherwise: refused.filter((answer) => !retryLater(answer)).length,
    otherStatuses: [...new Set(refused.filter((answer) => !retryLater(answer)).map((answer) => answer.status))],
    overBudget: during.filter((answer) => answer.answeredAt - answer.sentAt > hangMs).length,
  };
}
