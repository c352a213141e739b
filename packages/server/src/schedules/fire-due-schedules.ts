import { latestTick, nextTick, type QuotaRefusal, type WorkflowManifest } from "@weft/contract";
import { sql } from "drizzle-orm";
import { recordAuditEvents } from "../audit/record-audit-event.ts";
import { utcDayOf } from "../billing/billing-month.ts";
import { type PlanCatalogue, planOf } from "../billing/plans.ts";
import { readQuotaUsage } from "../billing/quota-usage.ts";
import type { Database, Transaction } from "../db/database.ts";
import { jsonRowsInsert } from "../db/insert-json-rows.ts";
import { preparedSql } from "../db/prepared-sql.ts";
import { scheduleTicks } from "../db/schema/index.ts";
import { insertNewExecutions, queuedExecutionRows } from "../engine/enqueue-execution.ts";
import type { NewExecutionRows } from "../engine/new-execution-rows.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { ticksAdmitted } from "./ticks-admitted.ts";

/**
 * Most ticks one transaction fires. It bounds the transaction (its statements are the same few
 * whatever the number, each one row per tick), and so how long anything else waits behind it: on
 * the embedded database, one connection serves the API and the worker alike.
 */
export const ticksPerTransaction = 100;

/**
 * How long one transaction should take: the next one takes as many ticks as fit at the last one's
 * pace (at most `ticksPerTransaction`), so that a request queued behind it waits about this long
 * whatever the database's speed.
 */
export const transactionBudgetMs = 10;

/** Ticks of a pass's first transaction, before any pace is known: all of a small minute's. */
export const firstTransactionTicks = 10;

/** Longest pause between two transactions of one pass, which lets the requests waiting meanwhile go first. */
const maxPauseMs = 100;

export interface FiredTick {
  projectId: string;
  schedule: string;
  scheduledFor: Date;
  executionId: string;
}

export interface ScheduleFiringDependencies {
  clock: Clock;
  ids: IdGenerator;
  /** The plans whose monthly quotas a tick must have room in (WEFT_PLANS). */
  catalogue: PlanCatalogue;
}

interface DueSchedule {
  project_id: string;
  name: string;
  deployment_id: string;
  workflow: string;
  cron: string;
  timezone: string;
  input: Record<string, unknown> | null;
  next_run_ms: number;
  last_skipped_ms: number | null;
  /** The workflow's entry of the deployment's manifest; null when the deployment lacks it. */
  workflow_manifest: WorkflowManifest | null;
  workspace_id: string;
  plan: string | null;
}

const dueStatement = preparedSql<DueSchedule>(
  "due_schedules",
  () =>
    sql`select s.project_id, s.name, s.deployment_id, s.workflow, s.cron, s.timezone, s.input,
        (extract(epoch from s.next_run_at) * 1000)::float8 as next_run_ms,
        (extract(epoch from s.last_skipped_at) * 1000)::float8 as last_skipped_ms,
        (select w from json_array_elements(d.manifest -> 'workflows') w
          where w ->> 'name' = s.workflow limit 1) as workflow_manifest,
        p.workspace_id, ws.plan
      from schedules s
      join deployments d on d.id = s.deployment_id
      join projects p on p.id = s.project_id
      join workspaces ws on ws.id = p.workspace_id
      where s.enabled and s.next_run_at <= ${sql.placeholder("now")}::timestamptz
      order by s.next_run_at
      limit ${sql.placeholder("limit")}::int
      for update of s skip locked`,
);

const tickRows = jsonRowsInsert(scheduleTicks, ["projectId", "scheduleName", "scheduledFor", "executionId", "firedAt"]);

/** Claims the ticks: the primary key (schedule, tick) admits one execution per tick, whichever worker gets there. */
const claimTicksStatement = preparedSql<{ execution_id: string }>(
  "claim_schedule_ticks",
  () => sql`${tickRows.statement(sql.placeholder("ticks"))} on conflict do nothing returning execution_id`,
);

/** Each schedule's next tick, and what its tick did: started an execution, or was skipped and why. */
const advanceStatement = preparedSql<never>(
  "advance_schedules",
  () =>
    sql`update schedules s set next_run_at = v.next_run_at,
        last_run_at = coalesce(v.last_run_at, s.last_run_at),
        last_execution_id = coalesce(v.last_execution_id, s.last_execution_id),
        last_skipped_at = coalesce(v.last_skipped_at, s.last_skipped_at),
        last_skip_reason = coalesce(v.last_skip_reason, s.last_skip_reason)
      from json_to_recordset(${sql.placeholder("schedules")}::json) as v(project_id text, name text,
        next_run_at timestamptz, last_run_at timestamptz, last_execution_id text, last_skipped_at timestamptz,
        last_skip_reason text)
      where s.project_id = v.project_id and s.name = v.name`,
);

/**
 * Starts one execution (trigger kind `schedule`) for each enabled schedule whose tick has come,
 * with `{ scheduledFor, ...input }` as input, while its workspace's plan has room: a tick over a
 * monthly quota starts nothing, and is recorded on the schedule (`lastSkippedAt`, its reason) and
 * audited once per schedule per UTC day (`schedule.skipped`). Any number of workers may call it at
 * once: the due rows are locked with SKIP LOCKED, and the tick is claimed in `schedule_ticks`,
 * whose primary key (schedule, tick) admits one execution per tick whatever happens to the
 * schedule's row. The ticks, their executions and the schedules' next ticks commit together, so a
 * worker that dies in between leaves the ticks due for the next pass. Ticks missed while no worker
 * ran are not replayed: a late schedule fires once, for its latest tick, and then waits for its
 * next one from now.
 *
 * The due ticks go in batches of `firstTransactionTicks`, then as many as the last batch's pace
 * fits in `transactionBudgetMs` (at most `ticksPerTransaction`), each batch in one transaction of a fixed few statements
 * (multi-row), with a pause between two as long as the last took (at most `maxPauseMs`); both in
 * real time, which is what they pace: a minute with thousands of ticks leaves the database to
 * other work half the time, in slices short enough for a request to wait behind.
 */
export async function fireDueSchedules(
  db: Database | Transaction,
  deps: ScheduleFiringDependencies,
  options: { ticksPerTransaction?: number; transactionBudgetMs?: number } = {},
): Promise<FiredTick[]> {
  const most = options.ticksPerTransaction ?? ticksPerTransaction;
  const budgetMs = options.transactionBudgetMs ?? transactionBudgetMs;
  const fired: FiredTick[] = [];
  let limit = Math.min(most, firstTransactionTicks);
  for (;;) {
    const started = performance.now();
    const batch = await fireBatch(db, deps, limit);
    fired.push(...batch.fired);
    if (batch.due < limit) return fired;
    const tookMs = performance.now() - started;
    limit = Math.max(1, Math.min(most, Math.floor((limit * budgetMs) / Math.max(tookMs, 1))));
    await new Promise((resolve) => setTimeout(resolve, Math.min(maxPauseMs, tookMs)));
  }
}

/** What one due tick does: start `rows` (if its claim wins), or nothing, over `skipped`. */
interface TickOutcome {
  schedule: DueSchedule;
  scheduledFor: Date;
  nextRunAt: Date | null;
  rows?: NewExecutionRows | undefined;
  skipped?: QuotaRefusal | undefined;
}

async function fireBatch(
  db: Database | Transaction,
  deps: ScheduleFiringDependencies,
  limit: number,
): Promise<{ due: number; fired: FiredTick[] }> {
  return db.transaction(async (tx) => {
    const now = deps.clock.now();
    const due = await dueStatement.execute(tx, { now: now.toISOString(), limit });
    if (due.length === 0) return { due: 0, fired: [] };
    const admitted = await admittedByWorkspace(tx, deps.catalogue, due, now);
    const outcomes = due.map((schedule) => tickOutcome(deps, schedule, admitted.get(schedule.workspace_id), now));
    const claimed = await claimTicks(tx, outcomes, now);
    const fired = outcomes.flatMap((outcome) =>
      outcome.rows !== undefined && claimed.has(outcome.rows.execution.id) ? [{ ...outcome, rows: outcome.rows }] : [],
    );
    if (fired.length > 0)
      await insertNewExecutions(
        tx,
        fired.map((outcome) => outcome.rows),
      );
    await advanceStatement.execute(tx, {
      schedules: JSON.stringify(
        outcomes.map((outcome) => {
          const ran = outcome.rows !== undefined && claimed.has(outcome.rows.execution.id);
          return {
            project_id: outcome.schedule.project_id,
            name: outcome.schedule.name,
            next_run_at: outcome.nextRunAt?.toISOString() ?? null,
            last_run_at: ran ? outcome.scheduledFor.toISOString() : null,
            last_execution_id: ran ? outcome.rows?.execution.id : null,
            last_skipped_at: outcome.skipped === undefined ? null : outcome.scheduledFor.toISOString(),
            last_skip_reason: outcome.skipped === undefined ? null : skipReason(outcome.skipped),
          };
        }),
      ),
    });
    await auditFirstSkipOfDay(tx, deps, outcomes);
    return {
      due: due.length,
      fired: fired.map(({ schedule, scheduledFor, rows }) => ({
        projectId: schedule.project_id,
        schedule: schedule.name,
        scheduledFor,
        executionId: rows.execution.id,
      })),
    };
  });
}

/** The tick a due schedule is at, and its execution's rows while `room` (its workspace's, if counted) has any. */
function tickOutcome(
  deps: ScheduleFiringDependencies,
  schedule: DueSchedule,
  room: WorkspaceRoom | undefined,
  now: Date,
): TickOutcome {
  const scheduledFor = latestTick(schedule.cron, schedule.timezone, now) ?? new Date(schedule.next_run_ms);
  const nextRunAt = nextTick(schedule.cron, schedule.timezone, now);
  if (room !== undefined && room.left <= 0) return { schedule, scheduledFor, nextRunAt, skipped: room.refusal };
  if (room !== undefined) room.left -= 1;
  const workflow = schedule.workflow_manifest;
  if (workflow === null) throw new Error(`schedule ${schedule.name} names a workflow its deployment lacks`);
  const rows = queuedExecutionRows(
    deps,
    {
      projectId: schedule.project_id,
      deploymentId: schedule.deployment_id,
      workflow: schedule.workflow,
      input: { scheduledFor: scheduledFor.toISOString(), ...schedule.input },
      trigger: { kind: "schedule", name: schedule.name },
    },
    workflow,
  );
  return { schedule, scheduledFor, nextRunAt, rows };
}

/** Claims the ticks that would start an execution, in one insert; the ids of the executions whose tick it claimed. */
async function claimTicks(tx: Transaction, outcomes: readonly TickOutcome[], now: Date): Promise<Set<string>> {
  const ticks = outcomes.flatMap(({ schedule, scheduledFor, rows }) =>
    rows === undefined
      ? []
      : [
          {
            projectId: schedule.project_id,
            scheduleName: schedule.name,
            scheduledFor,
            executionId: rows.execution.id,
            firedAt: now,
          },
        ],
  );
  if (ticks.length === 0) return new Set();
  const claimed = await claimTicksStatement.execute(tx, { ticks: tickRows.json(ticks) });
  return new Set(claimed.map((row) => row.execution_id));
}

/** The executions a workspace may still start in this batch, and the refusal its further ticks get. */
interface WorkspaceRoom {
  left: number;
  refusal: QuotaRefusal | undefined;
}

/**
 * How many more executions each workspace of the batch may start, read in the batch's transaction
 * (the month's meters, `readQuotaUsage`): one read per workspace whose plan has a monthly quota,
 * none for the others, which are absent from the map.
 */
async function admittedByWorkspace(
  tx: Transaction,
  catalogue: PlanCatalogue,
  due: readonly DueSchedule[],
  now: Date,
): Promise<Map<string, WorkspaceRoom>> {
  const wanted = new Map<string, { plan: string | null; ticks: number }>();
  for (const schedule of due) {
    const entry = wanted.get(schedule.workspace_id) ?? { plan: schedule.plan, ticks: 0 };
    entry.ticks += 1;
    wanted.set(schedule.workspace_id, entry);
  }
  const admitted = new Map<string, WorkspaceRoom>();
  for (const [workspaceId, { plan: assigned, ticks }] of wanted) {
    const plan = planOf(catalogue, assigned);
    const decision = await ticksAdmitted(plan, () => readQuotaUsage(tx, workspaceId, now), { ticks, now });
    if (decision !== undefined) admitted.set(workspaceId, { left: decision.admitted, refusal: decision.refusal });
  }
  return admitted;
}

/** What `schedules.list` says of a skipped tick: the quota, its use and when it resets. */
function skipReason(refusal: QuotaRefusal): string {
  const reset = refusal.resetsAt === null ? "" : `; it resets at ${refusal.resetsAt}`;
  return `quota ${refusal.name} used up (${refusal.used} of ${refusal.limit})${reset}`;
}

/** `schedule.skipped`, for the skipped ticks of schedules whose latest skip before was on another UTC day (or none). */
async function auditFirstSkipOfDay(
  tx: Transaction,
  deps: ScheduleFiringDependencies,
  outcomes: readonly TickOutcome[],
): Promise<void> {
  const firstOfDay = outcomes.filter(
    (outcome) =>
      outcome.skipped !== undefined &&
      (outcome.schedule.last_skipped_ms === null ||
        utcDayOf(new Date(outcome.schedule.last_skipped_ms)) !== utcDayOf(outcome.scheduledFor)),
  );
  await recordAuditEvents(
    tx,
    deps,
    firstOfDay.map(({ schedule, scheduledFor, skipped }) => ({
      action: "schedule.skipped",
      targetType: "schedule",
      targetId: `${schedule.project_id}/${schedule.name}`,
      workspaceId: schedule.workspace_id,
      data: {
        projectId: schedule.project_id,
        name: schedule.name,
        scheduledFor: scheduledFor.toISOString(),
        quota: skipped,
      },
    })),
  );
}
