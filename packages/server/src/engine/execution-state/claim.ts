import { type Placeholder, type SQL, sql } from "drizzle-orm";
import type { Database, Transaction } from "../../db/database.ts";
import { genericPlan, genericPlanRows } from "../../db/generic-plan.ts";
import { type PreparedSql, preparedSql } from "../../db/prepared-sql.ts";
import { relaxedCommit, relaxedCommitUsed, relaxTransactionCommit } from "../sql-rows.ts";
import { insertAttemptSpans } from "./attempt-spans.ts";
import {
  type ClaimTransition,
  claimTransitionFrom,
  claimTransitions,
  type ExecutionState,
  type LeasingTransition,
  leasedState,
  transitions,
} from "./execution-states.ts";
import { readyStates } from "./status-conditions.ts";
import { setStatusOf, statusIn } from "./transition-condition.ts";

/** An execution a worker has just leased, with what it needs to run it. */
export interface ClaimedExecution {
  id: string;
  projectId: string;
  /** The account that pays for the execution's workspace: a worker's share holds per account. */
  accountId: string;
  deploymentId: string;
  workflow: string;
  input: unknown;
  attempt: number;
  maxAttempts: number;
  retryMinDelayMs: number;
  retryMaxDelayMs: number;
  timeoutMs: number | null;
  traceId: string;
  executionSpanId: string;
  cancelRequested: boolean;
  /** A run claimed at or after this instant (its `ttl`) ends `expired` instead of starting. */
  expiresAt: Date | null;
  /** False for an execution never started before: it has no stored steps to replay. */
  hasHistory: boolean;
  /** The transition that leased it: `wake` and `expireLease` continue an attempt rather than start one. */
  transition: LeasingTransition;
  /** The span opened for this attempt (or resumption) by the claim. */
  attemptSpanId: string;
  /** Bytes of JSON text of the execution's own logs (those written outside steps, by earlier attempts). */
  logBytes: number;
  /** Times the execution was taken over from a worker whose lease lapsed (`expireLease`), this claim included. */
  leaseExpiries: number;
  /** How many starts by executions lead to this one (`executions.depth`): its children are one deeper. */
  depth: number;
}

interface ClaimRow {
  id: string;
  project_id: string;
  account_id: string;
  deployment_id: string;
  workflow: string;
  input: unknown;
  attempt: number;
  max_attempts: number;
  retry_min_delay_ms: number;
  retry_max_delay_ms: number;
  timeout_ms: number | null;
  trace_id: string;
  execution_span_id: string;
  cancel_requested_at: Date | null;
  expires_at: Date | string | null;
  previous_started_at: Date | string | null;
  previous_status: ExecutionState;
  resumed: boolean;
  attempt_span_id: string;
  log_bytes: number | string;
  lease_expiries: number;
  depth: number;
}

/** The row of a claim that leased nothing, which carries only what was read alongside. */
type NoClaimRow = { [Column in keyof ClaimRow]: null };

/** A group (project, workflow) of claimable concurrency-limited executions. */
interface LimitedGroupRow {
  project_id: string;
  workflow: string;
  concurrency_limit: number;
  /** Whether its limit holds per concurrency key. */
  keyed: boolean;
  /** Whether its claimable executions differ in priority: only then is the order by priority worth a sort. */
  prioritised: boolean;
  /** The highest priority of its claimable executions. */
  top_priority: number;
}

export interface ClaimRequest {
  workerId: string;
  now: Date;
  leaseMs: number;
  limit: number;
  /**
   * Most executions this worker may run at once of one workspace, and of all the workspaces one
   * account pays for together (see `workspaceSlots`).
   */
  workspaceSlots: number;
  /** Which of the claim transitions to take; all three by default (the worker). */
  transitions?: readonly ClaimTransition[] | undefined;
  /**
   * Commit only once the WAL is flushed. On the embedded database a crash of the process is one of
   * the database: a relaxed claim lost with it leaves no trace that the execution ran, so one whose
   * code kills the process would be claimed, run and lost again for ever, never counted.
   */
  durable?: boolean | undefined;
}

/**
 * What a claim's statement reads of its request, each value written in (`Unset` never) or a
 * placeholder (`Unset` = `Placeholder`). The worker's claim is prepared once per shape
 * (`unlimitedClaimStatement`) with placeholders; the other claims are built with their values.
 */
interface ClaimSql<Unset = Placeholder> {
  workerId: string | Unset;
  /** The claim's instant, as ISO text. */
  now: string | Unset;
  /** When the leases it takes lapse, as ISO text. */
  expires: string | Unset;
  limit: number | Unset;
  workspaceSlots: number | Unset;
  transitions: readonly ClaimTransition[];
  durable: boolean;
}

/** The statement values of `request`. */
function claimSql(request: ClaimRequest): ClaimSql<never> {
  return {
    workerId: request.workerId,
    now: request.now.toISOString(),
    expires: new Date(request.now.getTime() + request.leaseMs).toISOString(),
    limit: request.limit,
    workspaceSlots: request.workspaceSlots,
    transitions: request.transitions ?? claimTransitions,
    durable: request.durable === true,
  };
}

/**
 * This worker's running executions per account that pays for their workspaces, as a CTE body
 * (`account_id`, `running`). A workspace's executions are among its account's, so the account's
 * share bounds each of its workspaces too.
 */
function busyAccounts(request: Pick<ClaimSql, "workerId">): SQL {
  return sql`select w.billing_account_id as account_id, count(*)::int as running from executions r
      join projects p on p.id = r.project_id join workspaces w on w.id = p.workspace_id
    where ${statusIn([leasedState], "r.status")} and r.lease_owner = ${request.workerId} group by w.billing_account_id`;
}

/**
 * The account that pays for a workspace, as a scalar subquery: looked up by key for each row it is
 * asked of. As a join, the planner may hash every workspace for the few rows a claim leases.
 */
function accountOfWorkspace(workspaceId: SQL): SQL {
  return sql`(select w.billing_account_id from workspaces w where w.id = ${workspaceId})`;
}

/** The account that pays for the workspace of the project `projectId` names, as a scalar subquery. */
function accountOfProject(projectId: SQL): SQL {
  return sql`(select w.billing_account_id from projects p join workspaces w on w.id = p.workspace_id
    where p.id = ${projectId})`;
}

/** One guard of what is claimable, read in its own index order. */
interface ClaimablePart {
  condition: SQL;
  order: SQL;
  /** The executions due to start or resume (`claim`, `wake`), as against those under a lapsed lease. */
  due: boolean;
  /** The part's condition on the state alone. */
  states: SQL;
}

/**
 * Claimable: by `claim` or `wake`, with `run_at` reached; by `expireLease`, under an expired lease
 * held by another worker (it died; its own live executions are never taken back from under it).
 * The states of the transitions sharing a guard are listed in one `in (...)`, as the partial
 * indexes `executions_ready_idx` and `executions_leased_idx` are. The two guards come apart, each
 * read in its own index order: one condition joining them by `or` is read as a bitmap, which never
 * marks an entry of a dead row as dead, so every claim visits the rows that died since the last
 * vacuum, while an index scan marks the dead entries it meets and skips them from then on.
 */
function claimableParts(request: ClaimSql): ClaimablePart[] {
  const now = request.now;
  const taken = request.transitions;
  const statesOf = (names: readonly ClaimTransition[]) =>
    names.filter((name) => taken.includes(name)).flatMap((name) => transitions[name].from);
  const due = statesOf(["claim", "wake"]);
  const lapsed = statesOf(["expireLease"]);
  const parts: ClaimablePart[] = [];
  if (due.length > 0) {
    parts.push({
      condition: sql`${statusIn(due, "e.status")} and e.run_at <= ${now}::timestamptz`,
      order: sql`e.run_at`,
      due: true,
      states: statusIn(due, "e.status"),
    });
  }
  if (lapsed.length > 0) {
    parts.push({
      condition: sql`${statusIn(lapsed, "e.status")} and e.lease_expires_at < ${now}::timestamptz
        and e.lease_owner <> ${request.workerId}`,
      order: sql`e.lease_expires_at`,
      due: false,
      states: statusIn(lapsed, "e.status"),
    });
  }
  return parts;
}

/** The three claim transitions lead to the same state, so one assignment serves them all. */
const claimedStatus = setStatusOf("claim");
const resumedFrom = statusIn([...transitions.wake.from, ...transitions.expireLease.from], "c.previous_status");
const tookOver = statusIn(transitions.expireLease.from, "c.previous_status");

/**
 * Leases the candidate rows and opens an attempt span for each, in one statement (one round trip,
 * committed without waiting for the WAL flush unless `durable`: see `relaxedCommit`); a row taken
 * over from a lapsed lease counts one more lease expiry. Given `alongside`, a read made only when
 * fewer than `limit` rows were leased, whose rows come back as one JSON array in the column
 * `alongside` of every row, and in one row with no execution when nothing was leased.
 */
function leaseAndReturn(request: ClaimSql, candidates: SQL, alongside?: SQL): SQL {
  const { now, expires } = request;
  const relaxed = !request.durable;
  const relaxedUsed = relaxed ? sql`${relaxedCommitUsed} as relaxed,` : sql``;
  return sql`with ${relaxed ? sql`${relaxedCommit}, ` : sql``}candidates as (${candidates}),
    claimed as (update executions x set ${claimedStatus}, lease_owner = ${request.workerId},
        lease_expires_at = ${expires}::timestamptz, started_at = coalesce(x.started_at, ${now}::timestamptz),
        lease_expiries = x.lease_expiries + case when ${tookOver} then 1 else 0 end
      from candidates c where x.id = c.id
      returning x.id, x.project_id, x.deployment_id, x.workflow, x.input, x.attempt, x.max_attempts,
        x.retry_min_delay_ms, x.retry_max_delay_ms, x.timeout_ms, x.trace_id, x.execution_span_id,
        x.cancel_requested_at, x.expires_at, c.previous_started_at, c.previous_status, ${resumedFrom} as resumed,
        substr(replace(gen_random_uuid()::text, '-', ''), 1, 16) as attempt_span_id,
        octet_length(x.logs::text) as log_bytes, x.lease_expiries, x.depth,
        ${accountOfProject(sql`x.project_id`)} as account_id),
    attempt_spans as (${insertAttemptSpans(sql`claimed`, request.workerId, request.now)} returning 1)${
      alongside === undefined
        ? sql`
    select claimed.*, ${relaxedUsed} (select count(*) from attempt_spans) as spans from claimed`
        : sql`, alongside as (select * from (${alongside}) found where (select count(*) from claimed) < ${request.limit}::int)
    select claimed.*, ${relaxedUsed} (select count(*) from attempt_spans) as spans, gathered.alongside
    from (select json_agg(alongside) as alongside from alongside) gathered left join claimed on true`
    }`;
}

function toClaimed(row: ClaimRow): ClaimedExecution {
  return {
    id: row.id,
    projectId: row.project_id,
    accountId: row.account_id,
    deploymentId: row.deployment_id,
    workflow: row.workflow,
    input: row.input,
    attempt: row.attempt,
    maxAttempts: row.max_attempts,
    retryMinDelayMs: row.retry_min_delay_ms,
    retryMaxDelayMs: row.retry_max_delay_ms,
    timeoutMs: row.timeout_ms,
    traceId: row.trace_id,
    executionSpanId: row.execution_span_id,
    cancelRequested: row.cancel_requested_at !== null,
    expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
    hasHistory: row.previous_started_at !== null,
    transition: claimTransitionFrom(row.previous_status),
    attemptSpanId: row.attempt_span_id,
    logBytes: Number(row.log_bytes),
    leaseExpiries: row.lease_expiries,
    depth: row.depth,
  };
}

/** Projects whose due executions of a positive priority one claim looks for, at most: one index probe each. */
export const prioritisedProjectsPerClaim = 50;

/**
 * The workspaces with due executions of a positive priority, as a CTE body (`id`): a skip scan of
 * `executions_prioritised_ready_idx`, one probe per project, whose first entry is its oldest. Their
 * plain executions, of priority 0, wait for those. A workspace past `prioritisedProjectsPerClaim`
 * projects with such executions is not deferred: its plain work is claimed in queue order as before.
 */
function prioritisedWorkspaces(request: ClaimSql): SQL {
  const ready = statusIn(readyStates, "e.status");
  return sql`prioritised_projects as (
      (select e.project_id, e.run_at, 1 as probes from executions e where ${ready} and e.priority > 0
        order by e.project_id, e.run_at limit 1)
      union all
      select later.project_id, later.run_at, walked.probes + 1 from prioritised_projects walked cross join lateral (
        select e.project_id, e.run_at from executions e
        where ${ready} and e.priority > 0 and e.project_id > walked.project_id
        order by e.project_id, e.run_at limit 1) later
      where walked.probes < ${prioritisedProjectsPerClaim}::int
    ),
    prioritised_workspaces as (select p.workspace_id as id from prioritised_projects pp join projects p on p.id = pp.project_id
      where pp.run_at <= ${request.now}::timestamptz)`;
}

/**
 * Leases up to `limit` claimable executions of workflows without a concurrency limit, at most
 * `workspaceSlots` running per account on this worker, whichever of its workspaces they are in.
 * The workspaces of accounts at their share are skipped before rows are locked, by the workspace
 * each row's project join already reads (the account is looked up for the locked rows only);
 * among the rows locked, each account gets what its share has left (rows past it stay queued), so
 * an account with a long backlog cannot take a whole pass either.
 * Each guard locks up to `limit` rows and the earliest `limit` of both are leased: the others are
 * let go unchanged when the statement ends, and the lapsed leases taken first are those that
 * lapsed first.
 * The first pass (`deferToPriority`) leaves the due executions of workspaces that have due ones of
 * a positive priority, which the limited groups' claim takes first, and reads those groups in the
 * same statement, through their own partial index: a separate read was a statement per claim,
 * mostly to find none.
 */
async function claimUnlimited(
  db: Database,
  request: ClaimRequest,
  deferToPriority: boolean,
): Promise<{ executions: ClaimedExecution[]; groups: { rows: LimitedGroupRow[]; walkedAll: boolean } | undefined }> {
  const values = claimSql(request);
  if (claimableParts(values).length === 0) return { executions: [], groups: undefined };
  const cursor = deferToPriority ? groupsCursor : undefined;
  const statement = unlimitedClaimStatement({
    transitions: values.transitions,
    durable: values.durable,
    deferToPriority,
    fromCursor: cursor !== undefined,
  });
  const { workerId, now, expires, limit, workspaceSlots } = values;
  const rows = await statement.execute(db, {
    workerId,
    now,
    expires,
    limit,
    workspaceSlots,
    cursorProject: cursor?.projectId,
    cursorWorkflow: cursor?.workflow,
  });
  const alongside = rows[0]?.alongside;
  return {
    executions: rows.flatMap((row) => (row.id === null ? [] : [toClaimed(row)])),
    groups: alongside === undefined || alongside === null ? undefined : learnWalk(alongside),
  };
}

/** A row of the unlimited claim: a leased execution, or none with the groups read alongside. */
type UnlimitedClaimRow = (ClaimRow | NoClaimRow) & { alongside?: (LimitedGroupRow | WalkEndRow)[] | null };

/** What the text of an unlimited claim's statement depends on, beside its values. */
interface UnlimitedClaimShape {
  transitions: readonly ClaimTransition[];
  durable: boolean;
  deferToPriority: boolean;
  /** Whether the walk of the limited groups starts after the last walk's end (`groupsCursor`). */
  fromCursor: boolean;
}

const unlimitedClaimStatements = new Map<string, PreparedSql<UnlimitedClaimRow>>();

/**
 * The unlimited claim of `shape`, built and rendered once: the worker claims whenever work is
 * announced, and building the statement's text was a good part of a claim's cost (figures in
 * docs/decisions/0134-a-run-started-without-a-claim.md).
 */
function unlimitedClaimStatement(shape: UnlimitedClaimShape): PreparedSql<UnlimitedClaimRow> {
  // By position in `claimTransitions`: the names in full would pass PostgreSQL's 63 bytes.
  const transitionsKey = shape.transitions.map((name) => claimTransitions.indexOf(name)).join("");
  const name = `claim_unlimited_t${transitionsKey}_${shape.durable ? "durable" : "relaxed"}${shape.deferToPriority ? "_deferring" : ""}${shape.fromCursor ? "_cursor" : ""}`;
  let statement = unlimitedClaimStatements.get(name);
  if (statement === undefined) {
    const values: ClaimSql = {
      workerId: sql.placeholder("workerId"),
      now: sql.placeholder("now"),
      expires: sql.placeholder("expires"),
      limit: sql.placeholder("limit"),
      workspaceSlots: sql.placeholder("workspaceSlots"),
      transitions: shape.transitions,
      durable: shape.durable,
    };
    const cursor = shape.fromCursor
      ? { projectId: sql.placeholder("cursorProject"), workflow: sql.placeholder("cursorWorkflow") }
      : undefined;
    statement = preparedSql(name, () => sql`${genericPlan}${unlimitedClaimSql(values, shape.deferToPriority, cursor)}`);
    unlimitedClaimStatements.set(name, statement);
  }
  return statement;
}

/** The statement of `claimUnlimited`. */
function unlimitedClaimSql(request: ClaimSql, deferToPriority: boolean, cursor: GroupsCursor | undefined): SQL {
  const parts = claimableParts(request);
  const lockedParts = parts.map(
    (part, index) => sql`${sql.raw(`locked_${index}`)} as (select e.id, e.started_at as previous_started_at,
        e.status as previous_status, e.run_at, p.workspace_id
      from executions e join projects p on p.id = e.project_id
      where e.concurrency_limit is null and ${part.condition}
        and p.workspace_id not in (select id from full_workspaces)
        ${deferToPriority && part.due ? sql`and p.workspace_id not in (select id from prioritised_workspaces)` : sql``}
      order by ${part.order} limit ${request.limit} for update of e skip locked)`,
  );
  const lockedUnion = sql.join(
    parts.map((_, index) => sql`select * from ${sql.raw(`locked_${index}`)}`),
    sql` union all `,
  );
  const candidates = sql`with recursive busy as (${busyAccounts(request)}),
    full_workspaces as (select w.id from workspaces w join busy on busy.account_id = w.billing_account_id
      where busy.running >= ${request.workspaceSlots}::int),
    ${deferToPriority ? sql`${prioritisedWorkspaces(request)},` : sql``}
    ${sql.join(lockedParts, sql`, `)},
    locked as (${lockedUnion} order by run_at limit ${request.limit}),
    ranked as (select accounted.*,
        row_number() over (partition by accounted.account_id order by accounted.run_at, accounted.id) as rank
      from (select locked.*, ${accountOfWorkspace(sql`locked.workspace_id`)} as account_id from locked) accounted)
    select ranked.id, ranked.previous_started_at, ranked.previous_status from ranked
      left join busy on busy.account_id = ranked.account_id
    where ranked.rank <= ${request.workspaceSlots}::int - coalesce(busy.running, 0)`;
  return deferToPriority
    ? leaseAndReturn(request, candidates, limitedGroupsRead(request, parts, cursor))
    : leaseAndReturn(request, candidates);
}

/** The last group a walk of `limitedGroupsWalked` groups reached, which the next walk starts after. */
interface WalkEndRow {
  project_id: null;
  walk_end_project: string;
  walk_end_workflow: string;
}

/**
 * Where this process's next walk of the limited groups begins: after the last group the walk before
 * it reached, when it stopped at `limitedGroupsWalked`. From the first group every time, the groups
 * that sort last would wait for ever behind as many that have ready executions not yet due. Lost with
 * the process, which only means the next walk starts from the first group.
 */
let groupsCursor: { projectId: string; workflow: string } | undefined;

/** Where a walk of the limited groups starts: after this group. */
interface GroupsCursor {
  projectId: string | Placeholder;
  workflow: string | Placeholder;
}

/** The groups read alongside a claim, with the walk's end noted for the next one. */
function learnWalk(rows: readonly (LimitedGroupRow | WalkEndRow)[]): { rows: LimitedGroupRow[]; walkedAll: boolean } {
  const end = rows.find((row): row is WalkEndRow => row.project_id === null);
  groupsCursor = end === undefined ? undefined : { projectId: end.walk_end_project, workflow: end.walk_end_workflow };
  return { rows: rows.filter((row): row is LimitedGroupRow => row.project_id !== null), walkedAll: end === undefined };
}

/** Groups (project, workflow) with ready limited executions one claim walks, at most: one index probe each. */
export const limitedGroupsWalked = 200;

/**
 * A skip scan of `executions_limited_groups_idx` for the groups with executions in `states`, one
 * probe per group reading its oldest, after `from`, up to `gate` groups more: a CTE body named `name`.
 */
function groupWalk(name: string, states: SQL, from: SQL, to: SQL, gate: SQL): SQL {
  const table = sql.raw(name);
  const limited = sql`e.concurrency_limit is not null and ${states}`;
  return sql`${table} as (
      (select e.project_id, e.workflow, e.run_at, e.concurrency_limit, 1 as probes from executions e
        where ${limited} and ${from} and ${to} and ${gate}
        order by e.project_id, e.workflow, e.run_at limit 1)
      union all
      select later.project_id, later.workflow, later.run_at, later.concurrency_limit, ${table}.probes + 1
      from ${table} cross join lateral (
        select e.project_id, e.workflow, e.run_at, e.concurrency_limit from executions e
        where ${limited} and (e.project_id, e.workflow) > (${table}.project_id, ${table}.workflow) and ${to}
        order by e.project_id, e.workflow, e.run_at limit 1) later
      where ${table}.probes < ${limitedGroupsWalked}::int
    )`;
}

/**
 * The groups of claimable concurrency-limited executions, read alongside the unlimited claim: each
 * workspace's in priority order, the workspaces' turns interleaved by age, so a priority orders the
 * work of its own workspace, never one workspace's before another's. Its cost is the groups, not
 * their backlogs: a walk of the groups with ready executions (`groupWalk`, from after the last walk's
 * end and wrapping round), those whose oldest is due kept, with the groups of lapsed leases; then
 * per group a probe of the keyed index and two of `executions_limited_priority_idx` for its highest
 * and lowest priority. The priorities are those of its ready executions, due or not yet, which only
 * orders a group with a higher priority still to come a little early.
 */
function limitedGroupsRead(request: ClaimSql, parts: readonly ClaimablePart[], cursor: GroupsCursor | undefined): SQL {
  const now = sql`${request.now}::timestamptz`;
  const duePart = parts.find((part) => part.due);
  const lapsedPart = parts.find((part) => !part.due);
  const after =
    cursor === undefined ? sql`true` : sql`(e.project_id, e.workflow) > (${cursor.projectId}, ${cursor.workflow})`;
  const upTo =
    cursor === undefined ? sql`false` : sql`(e.project_id, e.workflow) <= (${cursor.projectId}, ${cursor.workflow})`;
  const walks =
    duePart === undefined
      ? sql`walked as (select null::text as project_id, null::text as workflow, null::timestamptz as run_at,
          null::int as concurrency_limit, 0 as probes where false)`
      : sql`${groupWalk("walk_after", duePart.states, after, sql`true`, sql`true`)},
    ${groupWalk("walk_wrapped", duePart.states, sql`true`, upTo, sql`(select count(*) from walk_after) < ${limitedGroupsWalked}::int`)},
    walked as (select * from (select * from walk_after union all
        select project_id, workflow, run_at, concurrency_limit, ${limitedGroupsWalked}::int + probes from walk_wrapped) both_walks
      order by probes limit ${limitedGroupsWalked}::int)`;
  const lapsed =
    lapsedPart === undefined
      ? sql``
      : sql` union all select e.project_id, e.workflow, e.lease_expires_at, e.concurrency_limit,
          e.concurrency_key is not null, e.priority
        from executions e where e.concurrency_limit is not null and ${lapsedPart.condition}`;
  const ofGroup = (alias: string) =>
    sql.raw(`${alias}.project_id = grouped.project_id and ${alias}.workflow = grouped.workflow`);
  const ready = (alias: string) => statusIn(readyStates, `${alias}.status`);
  return sql`with recursive ${walks},
    found as (select walked.project_id, walked.workflow, walked.run_at, walked.concurrency_limit,
        false as lapsed_keyed, null::int as lapsed_priority
      from walked where walked.run_at <= ${now}${lapsed}),
    grouped as (select found.project_id, found.workflow, min(found.concurrency_limit)::int as concurrency_limit,
        min(found.run_at) as oldest, bool_or(found.lapsed_keyed) as lapsed_keyed,
        max(found.lapsed_priority) as lapsed_top, min(found.lapsed_priority) as lapsed_bottom
      from found group by found.project_id, found.workflow),
    described as (select grouped.*, p.workspace_id,
        grouped.lapsed_keyed or exists (select 1 from executions k where ${ofGroup("k")} and ${ready("k")}
          and k.concurrency_key is not null) as keyed,
        greatest(grouped.lapsed_top, (select max(x.priority) from executions x
          where ${ofGroup("x")} and x.concurrency_limit is not null and ${ready("x")})) as top_priority,
        least(grouped.lapsed_bottom, (select min(x.priority) from executions x
          where ${ofGroup("x")} and x.concurrency_limit is not null and ${ready("x")})) as bottom_priority
      from grouped join projects p on p.id = grouped.project_id)
    select * from (select described.project_id, described.workflow, described.concurrency_limit, described.keyed,
        coalesce(described.top_priority <> described.bottom_priority, false) as prioritised,
        coalesce(described.top_priority, 0) as top_priority, null as walk_end_project, null as walk_end_workflow
      from described
      order by dense_rank() over (partition by described.workspace_id order by coalesce(described.top_priority, 0) desc),
        described.oldest
      limit ${limitedGroupsPerClaim}) chosen
    union all
    select null, null, null, null, null, null, last.project_id, last.workflow
    from (select walked.project_id, walked.workflow from walked order by walked.probes desc limit 1) last
    where (select count(*) from walked) >= ${limitedGroupsWalked}::int`;
}

/**
 * Leases executions of one concurrency-limited workflow of one project. An advisory lock per
 * (project, workflow) serialises workers here, so the count of running executions they read is
 * exact and the limit holds across processes.
 */
async function claimLimitedGroup(
  db: Database,
  request: ClaimRequest,
  group: LimitedGroup,
): Promise<ClaimedExecution[]> {
  return db.transaction(async (tx) => {
    if (request.durable !== true) await tx.execute(relaxTransactionCommit);
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtextextended(${`concurrency:${group.projectId}:${group.workflow}`}, 0))`,
    );
    const values = claimSql(request);
    let candidates: SQL;
    if (group.keyed) {
      const cursor = `${group.projectId}:${group.workflow}`;
      const keys = await nextKeys(tx, group, keyCursors.get(cursor));
      const last = keys[keys.length - 1];
      if (last === undefined) keyCursors.delete(cursor);
      else keyCursors.set(cursor, last);
      candidates = keyedCandidates(values, group, keys);
    } else {
      candidates = groupCandidates(values, group);
    }
    return (await genericPlanRows<ClaimRow>(tx, leaseAndReturn(values, candidates))).map(toClaimed);
  });
}

interface LimitedGroup {
  projectId: string;
  workflow: string;
  concurrencyLimit: number;
  keyed: boolean;
  prioritised: boolean;
}

/** Running executions of the group (whose lease is live, or this worker's), of one concurrency key if `key` is given. */
function runningOfGroup(request: ClaimSql, group: LimitedGroup, key?: SQL): SQL {
  return sql`(select count(*)::int from executions r
    where r.project_id = ${group.projectId} and r.workflow = ${group.workflow} and ${statusIn([leasedState], "r.status")}
      ${key === undefined ? sql`` : sql`and r.concurrency_key = ${key}`}
      and (r.lease_expires_at >= ${request.now}::timestamptz or r.lease_owner = ${request.workerId}))`;
}

/** What the workspace share leaves this worker of the group's account. */
function slotsLeftOfGroup(request: ClaimSql, group: LimitedGroup): SQL {
  return sql`${request.workspaceSlots}::int - coalesce((
    select busy.running from (${busyAccounts(request)}) busy
    where busy.account_id = ${accountOfProject(sql`${group.projectId}`)}
  ), 0)`;
}

/** The order a group's executions are claimed in: by priority only where they differ, which costs a sort. */
function groupOrder(group: LimitedGroup): SQL {
  return group.prioritised ? sql`e.priority desc, e.run_at` : sql`e.run_at`;
}

/**
 * A group whose limit holds for the workflow as a whole: its next executions up to what the limit
 * leaves. Each guard is read in its own index order (the due ones from `executions_limited_groups_idx`,
 * or `executions_limited_priority_idx` where priorities differ), locking at most that many; one
 * condition joining them by `or` is read as the group's whole backlog, sorted.
 */
function groupCandidates(request: ClaimSql, group: LimitedGroup): SQL {
  const parts = claimableParts(request);
  if (parts.length === 0) {
    return sql`select e.id, e.started_at as previous_started_at, e.status as previous_status from executions e where false`;
  }
  const guarded = parts.map(
    (part, index) => sql`${sql.raw(`guard_${index}`)} as (select e.id, e.started_at as previous_started_at,
        e.status as previous_status, e.priority, ${part.order} as at from executions e
      where e.project_id = ${group.projectId} and e.workflow = ${group.workflow}
        and e.concurrency_limit is not null and ${part.condition}
      order by ${part.due ? groupOrder(group) : part.order} limit (select n from room) for update of e skip locked)`,
  );
  const union = sql.join(
    parts.map((_, index) => sql`select * from ${sql.raw(`guard_${index}`)}`),
    sql` union all `,
  );
  return sql`with room as (select greatest(0, least(${request.limit}::int,
        ${group.concurrencyLimit}::int - ${runningOfGroup(request, group)}, ${slotsLeftOfGroup(request, group)})) as n),
    ${sql.join(guarded, sql`, `)}
    select guarded.id, guarded.previous_started_at, guarded.previous_status from (${union}) guarded
    order by ${group.prioritised ? sql`guarded.priority desc, ` : sql``}guarded.at limit (select n from room)`;
}

/** Keys of one keyed group one claim looks at, at most: each costs an index probe or two. */
export const keysPerClaim = 32;

/**
 * Where this process's next walk of each keyed group's keys begins: after the last key the walk
 * before it reached. A walk from the first key every time would favour the keys that sort first
 * whenever more than `keysPerClaim` keys wait; from where the last one stopped, each key has its
 * turn. Lost with the process, which only means the next walk starts from the first key.
 */
const keyCursors = new Map<string, string>();

/** A skip scan of a keyed group's keys with ready executions that satisfy `bound`, one probe per key. */
function keyWalk(name: string, ofGroup: SQL, bound: SQL, gate: SQL): SQL {
  const table = sql.raw(name);
  const ready = statusIn(readyStates, "e.status");
  return sql`${table} as (
      (select e.concurrency_key as key, 1 as probes from executions e
        where ${ofGroup} and ${ready} and e.concurrency_key is not null and ${bound} and ${gate}
        order by e.concurrency_key limit 1)
      union all
      select later.key, ${table}.probes + 1 from ${table} cross join lateral (
        select e.concurrency_key as key from executions e
        where ${ofGroup} and ${ready} and e.concurrency_key is not null and e.concurrency_key > ${table}.key and ${bound}
        order by e.concurrency_key limit 1) later
      where ${table}.probes < ${keysPerClaim}::int
    )`;
}

/**
 * The next keys of a keyed group with ready executions, at most `keysPerClaim`: a skip scan of
 * `executions_keyed_ready_idx` (one probe per key, however long each key's queue) from after
 * `after`, wrapping round to the first key.
 */
async function nextKeys(tx: Transaction, group: LimitedGroup, after: string | undefined): Promise<string[]> {
  const ofGroup = sql`e.project_id = ${group.projectId} and e.workflow = ${group.workflow}`;
  const from = after === undefined ? sql`true` : sql`e.concurrency_key > ${after}`;
  const wrapped = after === undefined ? sql`false` : sql`e.concurrency_key <= ${after}`;
  const rows = await genericPlanRows<{ key: string }>(
    tx,
    sql`with recursive ${keyWalk("after_cursor", ofGroup, from, sql`true`)},
      ${keyWalk("wrapped", ofGroup, wrapped, sql`(select count(*) from after_cursor) < ${keysPerClaim}::int`)}
    select key from (select key, probes from after_cursor union all
      select key, ${keysPerClaim}::int + probes from wrapped) walked
    order by probes limit ${keysPerClaim}::int`,
  );
  return rows.map((row) => row.key);
}

/**
 * A group whose limit holds per concurrency key, over `keys` (`nextKeys`) and the keys of lapsed
 * leases: for each key, its next executions in priority order, as many as its running ones leave of
 * the limit (and no more than the claim takes); of those, the first in priority order, then oldest,
 * up to the claim's limit and the account's share. The rows are locked once chosen: the group's
 * advisory lock keeps other claims of it away, so only rows some other statement holds are skipped.
 */
function keyedCandidates(request: ClaimSql, group: LimitedGroup, keys: readonly string[]): SQL {
  const ofGroup = sql`e.project_id = ${group.projectId} and e.workflow = ${group.workflow}`;
  const room = sql`least(${request.limit}::int, ${group.concurrencyLimit}::int - coalesce(running.n, 0))`;
  const perKey = claimableParts(request).map(
    (part) => sql`(select e.id, e.priority, e.run_at from executions e
      where ${ofGroup} and e.concurrency_key = all_keys.key and ${part.condition}
      order by e.priority desc, e.run_at limit greatest(0, ${room}))`,
  );
  const lapsed = transitions.expireLease.from;
  return sql`with all_keys as (select unnest(${`{${keys.map((key) => JSON.stringify(key)).join(",")}}`}::text[]) as key union
      select e.concurrency_key from executions e
      where ${ofGroup} and ${statusIn(lapsed, "e.status")} and e.concurrency_key is not null
        and e.lease_expires_at < ${request.now}::timestamptz),
    running as (select r.concurrency_key as key, count(*)::int as n from executions r
      where r.project_id = ${group.projectId} and r.workflow = ${group.workflow} and ${statusIn([leasedState], "r.status")}
        and (r.lease_expires_at >= ${request.now}::timestamptz or r.lease_owner = ${request.workerId})
      group by r.concurrency_key),
    picked as (select c.id, c.priority, c.run_at from all_keys left join running on running.key = all_keys.key
      cross join lateral (select * from (${sql.join(perKey, sql` union all `)}) found
        order by found.priority desc, found.run_at limit greatest(0, ${room})) c)
    select e.id, e.started_at as previous_started_at, e.status as previous_status from executions e
    where e.id in (select picked.id from picked order by picked.priority desc, picked.run_at
      limit greatest(0, least(${request.limit}::int, ${slotsLeftOfGroup(request, group)})))
    for update of e skip locked`;
}

/** Groups of concurrency-limited executions one claim looks at; a claim that sees this many may have left some. */
export const limitedGroupsPerClaim = 50;

/** What one claim leased, and whether concurrency-limited executions were claimable when it looked. */
export interface ClaimOutcome {
  executions: ClaimedExecution[];
  /** Groups (project, workflow) of claimable concurrency-limited executions it saw; 0 when it filled `limit` first. */
  limitedGroups: number;
}

/**
 * Leases up to `limit` executions, honouring each workflow's concurrency limit: the `claim`,
 * `wake` and `expireLease` transitions, whichever each row's state allows. Within a workspace the
 * higher priority goes first, plain workflows counting as 0: the limited groups of a positive
 * priority before the plain executions their workspace's first pass left, and those before the
 * groups of priority 0 or less. A group held back by its limit or the share leaves its slots to
 * the plain work behind it, in the same claim.
 */
export async function claim(db: Database, request: ClaimRequest): Promise<ClaimOutcome> {
  const { executions: claimed, groups: read } = await claimUnlimited(db, request, true);
  let left = request.limit - claimed.length;
  if (left <= 0 || read === undefined) return { executions: claimed, limitedGroups: 0 };
  const groups = read.rows;
  const claimGroups = async (taken: readonly LimitedGroupRow[]) => {
    for (const group of taken) {
      if (left <= 0) return;
      const more = await claimLimitedGroup(
        db,
        { ...request, limit: left },
        {
          projectId: group.project_id,
          workflow: group.workflow,
          concurrencyLimit: group.concurrency_limit,
          keyed: group.keyed,
          prioritised: group.prioritised,
        },
      );
      claimed.push(...more);
      left -= more.length;
    }
  };
  const preferred = groups.filter((group) => group.top_priority > 0);
  await claimGroups(preferred);
  // Past `limitedGroupsPerClaim` groups, or the walk's, a deferred workspace's may not be among those read.
  const deferredSome = preferred.length > 0 || groups.length >= limitedGroupsPerClaim || !read.walkedAll;
  if (deferredSome && left > 0) {
    const deferred = await claimUnlimited(db, { ...request, limit: left }, false);
    claimed.push(...deferred.executions);
    left -= deferred.executions.length;
  }
  await claimGroups(groups.filter((group) => group.top_priority <= 0));
  // A walk that stopped before the last group may have passed claimable ones: the claim loop is told
  // as many as a full read, so that it does not conclude nothing is left.
  return { executions: claimed, limitedGroups: read.walkedAll ? groups.length : limitedGroupsPerClaim };
}

/** Runs past their time to live one pass of `claimExpired` ends, at most: each costs an end statement's row. */
export const expiredPerPass = 100;

/**
 * Leases the queued runs never started whose time to live has passed, at most `expiredPerPass`,
 * oldest expiry first, through `executions_expiring_idx`: whatever slots, shares and concurrency
 * limits would let a claim reach, so that a run reads `expired` once its time is up rather than
 * when a worker is free for it. The launcher ends each before any of its code runs.
 */
export async function claimExpired(
  db: Database,
  request: Pick<ClaimRequest, "workerId" | "now" | "leaseMs" | "durable">,
): Promise<ClaimedExecution[]> {
  const lease = { ...request, limit: expiredPerPass, workspaceSlots: expiredPerPass };
  const candidates = sql`select e.id, e.started_at as previous_started_at, e.status as previous_status from executions e
    where ${statusIn(transitions.claim.from, "e.status")} and e.started_at is null
      and e.expires_at <= ${request.now.toISOString()}::timestamptz
    order by e.expires_at limit ${expiredPerPass} for update skip locked`;
  return (await genericPlanRows<ClaimRow>(db, leaseAndReturn(claimSql(lease), candidates))).map(toClaimed);
}
