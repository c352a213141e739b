import { executionStatuses } from "@weft/contract";
import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { ownedBy, timestamptz } from "./columns.ts";
import { deployments } from "./deployments.ts";
import { projects } from "./projects.ts";

// The states are the contract's, which the state machine (`engine/execution-state`) moves between; the column accepts exactly those.
export type { ExecutionStatusValue as ExecutionStatus } from "@weft/contract";

export const triggerKinds = ["api", "form", "webhook", "rerun", "schedule", "event", "workflow"] as const;
export type TriggerKind = (typeof triggerKinds)[number];

export interface ExecutionError {
  name: string;
  message: string;
  stack?: string | undefined;
}

export interface LogEntry {
  at: string;
  level: "debug" | "info" | "warn" | "error";
  message: string;
  fields?: Record<string, unknown> | undefined;
  /** The attempt (or resumption) whose end stored this line outside a step: it places the line in the event stream. */
  attemptSpanId?: string | undefined;
}

/**
 * One run of a workflow, and the queue entry for it. A row is claimable when it is
 * `queued`/`sleeping`/`waiting` with `run_at` reached, or `running` with an expired lease (its worker died).
 * The workflow's retry policy, timeout and concurrency are copied from the deployment's manifest at
 * enqueue time so that claiming needs no join.
 */
export const executions = pgTable(
  "executions",
  {
    id: text("id").primaryKey(),
    projectId: ownedBy("project_id", () => projects.id),
    deploymentId: text("deployment_id")
      .notNull()
      .references(() => deployments.id),
    workflow: text("workflow").notNull(),
    status: text("status", { enum: executionStatuses }).notNull(),
    input: jsonb("input").$type<unknown>(),
    output: jsonb("output").$type<unknown>(),
    error: jsonb("error").$type<ExecutionError>(),
    attempt: integer("attempt").notNull(),
    maxAttempts: integer("max_attempts").notNull(),
    retryMinDelayMs: integer("retry_min_delay_ms").notNull(),
    retryMaxDelayMs: integer("retry_max_delay_ms").notNull(),
    timeoutMs: integer("timeout_ms"),
    concurrencyLimit: integer("concurrency_limit"),
    /**
     * The value of the workflow's concurrency key in the input (as JSON text, or its digest when
     * long), computed at enqueue: the limit holds per value. Null for a limit without a key.
     */
    concurrencyKey: text("concurrency_key"),
    /** Higher is claimed first among the flow-controlled executions of a workspace (`flow-control/`). */
    priority: integer("priority").notNull().default(0),
    /** The debounce key's value: at most one queued execution per value takes the triggers of a burst. */
    debounceKey: text("debounce_key"),
    /**
     * The keys a `cancelOn` entry with a `match` cancels this execution by (`engine/cancel-keys.ts`),
     * computed at enqueue from its input: empty when its workflow has none, null on the executions
     * enqueued before the keys were stored.
     */
    cancelKeys: text("cancel_keys").array(),
    runAt: timestamptz("run_at").notNull(),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: timestamptz("lease_expires_at"),
    /**
     * Times a worker took the execution over from one whose lease lapsed while it ran it (its
     * process died): past `WEFT_CRASH_ATTEMPTS` it fails instead of running again.
     */
    leaseExpiries: integer("lease_expiries").notNull().default(0),
    cancelRequestedAt: timestamptz("cancel_requested_at"),
    triggerKind: text("trigger_kind", { enum: triggerKinds }).notNull(),
    triggerName: text("trigger_name"),
    rerunOf: text("rerun_of"),
    /** The execution that started this one (`ctx.invoke`, `ctx.start`); null for any other trigger. */
    parentExecutionId: text("parent_execution_id"),
    /**
     * For `ctx.invoke`: the name of the parent's wait that this execution's end completes (with its
     * output or error), in the statement that ends it. Null for `ctx.start` and other triggers.
     */
    parentWaitName: text("parent_wait_name"),
    /**
     * How many starts by executions lead to this one: 0 for a start from outside (the API, a
     * webhook, a form, a schedule, an event sent from outside), the starter's depth + 1 for a child
     * (`ctx.invoke`, `ctx.start`) or an execution an event of a workflow starts (`ctx.sendEvent`).
     * A start past `maxExecutionDepth` is refused, so a workflow that starts itself ends.
     */
    depth: integer("depth").notNull().default(0),
    /** Labels given at the start (`workflows.run`'s `tags`), for listing; at most a few short ones. */
    tags: text("tags").array().notNull().default(sql`'{}'::text[]`),
    /** A queued execution not started by then ends `expired` (`workflows.run`'s `ttl`). */
    expiresAt: timestamptz("expires_at"),
    traceId: text("trace_id").notNull(),
    /** The span of the execution itself; attempt spans are its children. */
    executionSpanId: text("execution_span_id").notNull(),
    logs: jsonb("logs").$type<LogEntry[]>().notNull(),
    createdAt: timestamptz("created_at").notNull(),
    startedAt: timestamptz("started_at"),
    finishedAt: timestamptz("finished_at"),
  },
  (table) => [
    // The claim of workflows without a concurrency limit. With `concurrency_limit is null` in the
    // predicate, a database without statistics still plans that claim as this index in order: left
    // to guess that condition's selectivity, the planner took a backlog for a row or two and sorted
    // all of it at every claim.
    index("executions_ready_idx")
      .on(table.runAt)
      .where(sql`${table.status} in ('queued', 'sleeping', 'waiting') and ${table.concurrencyLimit} is null`),
    index("executions_leased_idx").on(table.leaseExpiresAt).where(sql`${table.status} = 'running'`),
    // A claim's read of concurrency-limited groups: without it, it reads every due execution to find
    // the few limited ones, a whole backlog of unlimited ones each time.
    index("executions_limited_ready_idx")
      .on(table.runAt)
      .where(sql`${table.status} in ('queued', 'sleeping', 'waiting') and ${table.concurrencyLimit} is not null`),
    // The queue's reading (`backpressure/`): the oldest ready execution of each concurrency-limited
    // workflow, one probe per workflow, so that a long queue behind a limit costs it nothing.
    index("executions_limited_groups_idx")
      .on(table.projectId, table.workflow, table.runAt)
      .where(sql`${table.status} in ('queued', 'sleeping', 'waiting') and ${table.concurrencyLimit} is not null`),
    // The claim of a concurrency-limited group: its highest and lowest priority, one probe each, and
    // its next executions in priority order, so that neither costs a read of its backlog.
    index("executions_limited_priority_idx")
      .on(table.projectId, table.workflow, table.priority.desc(), table.runAt)
      .where(sql`${table.status} in ('queued', 'sleeping', 'waiting') and ${table.concurrencyLimit} is not null`),
    // A claim of a workflow whose concurrency limit holds per key: the keys with ready executions,
    // one probe each, and each key's next ones in priority order.
    index("executions_keyed_ready_idx")
      .on(table.projectId, table.workflow, table.concurrencyKey, table.priority.desc(), table.runAt)
      .where(sql`${table.status} in ('queued', 'sleeping', 'waiting') and ${table.concurrencyKey} is not null`),
    // The claim of plain workflows defers a workspace's to its executions of a higher priority:
    // the projects with due ones, one probe each. Empty while no workflow sets a positive priority.
    index("executions_prioritised_ready_idx")
      .on(table.projectId, table.runAt)
      .where(sql`${table.status} in ('queued', 'sleeping', 'waiting') and ${table.priority} > 0`),
    // The workers' poll ends the runs never started within their time to live, whether or not a
    // slot or their concurrency limit would let a claim reach them.
    index("executions_expiring_idx")
      .on(table.expiresAt)
      .where(sql`${table.status} = 'queued' and ${table.startedAt} is null and ${table.expiresAt} is not null`),
    // Debounce: the one queued execution of a key that never started, which each trigger of a
    // burst moves. One that started and is queued again (a retry) is no longer the burst's.
    uniqueIndex("executions_debounce_idx")
      .on(table.projectId, table.workflow, table.debounceKey)
      .where(sql`${table.status} = 'queued' and ${table.debounceKey} is not null and ${table.startedAt} is null`),
    index().on(table.projectId, table.workflow, table.status),
    // With status, the ends of a range Studio counts (finer than a minute) are index-only scans.
    index().on(table.projectId, table.createdAt, table.status),
    // Retention walks finished executions oldest first; unfinished ones are never in its way.
    index("executions_finished_idx").on(table.finishedAt).where(sql`${table.finishedAt} is not null`),
    // An execution's children, and the cancellation of a cancelled parent's unfinished ones.
    index("executions_parent_idx").on(table.parentExecutionId).where(sql`${table.parentExecutionId} is not null`),
    // listExecutions' filter on tags (`tags @> array[...]`, which reads only tagged rows): untagged
    // executions, most of them, stay out of it, so their claim and end add no entry to it.
    index("executions_tags_idx").using("gin", table.tags).where(sql`cardinality(${table.tags}) > 0`),
    // A send's `cancelOn` match finds its executions by key (`events/cancel-on-event.ts`): only
    // those that can still be cancelled, so one already flagged is not read again. Without the
    // pending list, a lookup never scans the keys inserted since the last vacuum.
    index("executions_cancel_keys_idx")
      .using("gin", table.cancelKeys)
      .with({ fastupdate: false })
      .where(
        sql`${table.status} in ('queued', 'sleeping', 'waiting', 'running') and ${table.cancelRequestedAt} is null and cardinality(${table.cancelKeys}) > 0`,
      ),
    // The unfinished executions enqueued before `cancel_keys`, which a match still compares by input.
    index("executions_keyless_unfinished_idx")
      .on(table.projectId, table.workflow)
      .where(sql`${table.status} in ('queued', 'sleeping', 'waiting', 'running') and ${table.cancelKeys} is null`),
    // Studio's recent failures of a workspace: per project, newest first, failed rows only.
    index("executions_failures_idx").on(table.projectId, table.finishedAt).where(sql`${table.status} = 'failed'`),
  ],
);

/**
 * Idempotency keys of triggers: the same key within its window (24 h) names the same execution.
 * Kept apart from `executions` because uniqueness is bounded in time, which an index cannot express.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    projectId: text("project_id").notNull(),
    /**
     * Where the key came from: `api:<workflow>`, `webhook:<name>`, `form:<name>`. Its own column of
     * the primary key, so no key a caller sends can name another source's (definition names hold no `:`).
     */
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    executionId: ownedBy("execution_id", () => executions.id),
    /** SHA-256 (base64url) of the request that claimed the key; null where none is bound (hosted forms). */
    requestDigest: text("request_digest"),
    expiresAt: timestamptz("expires_at").notNull(),
  },
  // By execution too: deleting an execution cascades here.
  (table) => [
    primaryKey({ columns: [table.projectId, table.scope, table.key] }),
    index().on(table.expiresAt),
    index().on(table.executionId),
  ],
);

/**
 * A completed step (or a durable sleep) of an execution. Only completed steps are stored: a stored
 * step is replayed, never run again.
 */
export const executionSteps = pgTable(
  "execution_steps",
  {
    executionId: ownedBy("execution_id", () => executions.id),
    name: text("name").notNull(),
    kind: text("kind", { enum: ["step", "sleep"] }).notNull(),
    /** `{ value }` for a step that returned a value, `{}` for one that returned undefined. */
    result: jsonb("result").$type<{ value?: unknown }>().notNull(),
    attempt: integer("attempt").notNull(),
    startedAt: timestamptz("started_at").notNull(),
    finishedAt: timestamptz("finished_at").notNull(),
    /** For a sleep: when the execution may resume. */
    wakeAt: timestamptz("wake_at"),
    logs: jsonb("logs").$type<LogEntry[]>().notNull(),
    sequence: integer("sequence").notNull(),
  },
  (table) => [primaryKey({ columns: [table.executionId, table.name] })],
);

/** OpenTelemetry-shaped spans: trigger, execution, attempts, steps and wait tokens of every execution. */
export const spans = pgTable(
  "spans",
  {
    spanId: text("span_id").primaryKey(),
    traceId: text("trace_id").notNull(),
    parentSpanId: text("parent_span_id"),
    // No foreign key: its check locked the project's row at every span insert, two or more per
    // execution, from concurrent transactions. Deleting a project deletes its spans itself.
    projectId: text("project_id").notNull(),
    executionId: text("execution_id"),
    workflow: text("workflow"),
    name: text("name").notNull(),
    kind: text("kind", { enum: ["trigger", "execution", "attempt", "step", "token"] }).notNull(),
    startTime: timestamptz("start_time").notNull(),
    endTime: timestamptz("end_time"),
    attributes: jsonb("attributes").$type<Record<string, string | number | boolean>>().notNull(),
    statusCode: text("status_code", { enum: ["unset", "ok", "error"] }).notNull(),
    statusMessage: text("status_message"),
  },
  (table) => [index().on(table.traceId), index().on(table.executionId), index().on(table.projectId, table.startTime)],
);

export const waitTokenStatuses = ["pending", "completed", "timed_out", "closed"] as const;
export type WaitTokenStatus = (typeof waitTokenStatuses)[number];

/** Who may answer a token: whoever holds its URL, or only a signed-in member of its workspace who may change the project. */
export const waitTokenApprovers = ["anyone", "members"] as const;
export type WaitTokenApprovers = (typeof waitTokenApprovers)[number];

/** One labelled value a token shows its approver (an amount, a requester, a link). */
export interface WaitTokenField {
  label: string;
  value: string;
}

/** What `TokenOptions` says of a token beside its timeout. */
export interface WaitTokenDetails {
  title?: string | undefined;
  description?: string | undefined;
  fields?: WaitTokenField[] | undefined;
  approvers?: WaitTokenApprovers | undefined;
}

/**
 * A wait token (`ctx.createToken`, `ctx.waitForToken`): one per (execution, name). Its id is a
 * secret that is never stored: it is the HMAC of `nonce` under a key derived from WEFT_SECRET_KEY
 * (so a resumed execution gets the same id back), and it is found by its SHA-256 (`token_hash`).
 * `closed`: the execution ended while the token was pending.
 */
export const waitTokens = pgTable(
  "wait_tokens",
  {
    executionId: ownedBy("execution_id", () => executions.id),
    name: text("name").notNull(),
    projectId: text("project_id").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    nonce: text("nonce").notNull(),
    status: text("status", { enum: waitTokenStatuses }).notNull(),
    /** What the completion sent; null until then. */
    data: jsonb("data").$type<unknown>(),
    spanId: text("span_id").notNull(),
    createdAt: timestamptz("created_at").notNull(),
    expiresAt: timestamptz("expires_at").notNull(),
    finishedAt: timestamptz("finished_at"),
    /**
     * Set for a wait on an event (`ctx.waitForEvent`): the event's name, and the JSON path (as
     * `#>` segments, `{}` for none) and value the event must hold. A send completes the pending
     * waits of its name whose value is the event's at their path.
     */
    eventName: text("event_name"),
    eventMatchPath: text("event_match_path").array(),
    eventMatchValue: jsonb("event_match_value").$type<unknown>(),
    /** What the person who answers sees (escaped wherever shown); null when the workflow gave none. */
    title: text("title"),
    description: text("description"),
    fields: jsonb("fields").$type<WaitTokenField[]>(),
    approvers: text("approvers", { enum: waitTokenApprovers }).notNull().default("anyone"),
    /** The account that completed it when signed in (Studio, the API); null for a completion through its URL. */
    completedByAccountId: text("completed_by_account_id"),
    /** Set for the wait of `ctx.invoke`: the child execution whose end completes it (never an approval). */
    childExecutionId: text("child_execution_id"),
  },
  (table) => [
    primaryKey({ columns: [table.executionId, table.name] }),
    // The workspace's Approvals list reads the pending tokens of its projects.
    index("wait_tokens_pending_idx").on(table.projectId, table.createdAt).where(sql`${table.status} = 'pending'`),
    // A send's lookup: one probe per distinct path among the pending waits of its name, then the
    // waits holding the event's value there (`events/resolve-event-waits.ts`).
    index("wait_tokens_event_waits_idx")
      .on(table.projectId, table.eventName, table.eventMatchPath, table.eventMatchValue)
      .where(sql`${table.status} = 'pending' and ${table.eventName} is not null`),
  ],
);

/**
 * The live workers of a PostgreSQL installation: each renews its row with its leases. A worker that
 * starts takes over at once the running executions of workers whose row has lapsed (or that have
 * none), rather than waiting for each execution's lease to run out.
 */
export const workerHeartbeats = pgTable("worker_heartbeats", {
  workerId: text("worker_id").primaryKey(),
  startedAt: timestamptz("started_at").notNull(),
  expiresAt: timestamptz("expires_at").notNull(),
});
