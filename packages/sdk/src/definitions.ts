import type { Duration, JsonSchema } from "@weft/contract";

/**
 * Any schema implementing Standard Schema (zod 4 does). Only the type is read here: the CLI turns
 * the schema into JSON Schema for the manifest, and the server validates against that.
 */
export interface StandardSchemaLike<Output = unknown> {
  readonly "~standard": { readonly version: 1; readonly vendor: string; readonly types?: { readonly output: Output } };
}

export type SchemaDefinition<T = unknown> = StandardSchemaLike<T> | JsonSchema;

export interface WorkflowLogger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** A wait token: `url` completes it (a public POST with JSON, or its page's Approve and Reject). */
export interface WaitToken {
  /** A 256-bit secret: whoever has it can complete the token. */
  id: string;
  url: string;
}

/**
 * How a wait ended: completed with the body of the POST (`{ approved: true | false }` from the
 * page's buttons), or not completed before the timeout.
 */
export type TokenResult<TData = unknown> = { ok: true; data: TData } | { ok: false; reason: "timeout" };

export interface TokenOptions {
  /** At most 30 days, counted from the token's creation. */
  timeout: Duration;
  /** What is being approved, as its page and Studio title it: at most 200 characters. */
  title?: string;
  /** A few sentences more: at most 2,000 characters. */
  description?: string;
  /** At most 20 labelled values (an amount, a requester, a link): labels up to 100 characters, values up to 1,000. */
  fields?: { label: string; value: string | number | boolean }[];
  /**
   * `"anyone"` (the default): whoever holds the URL may answer. `"members"`: only a signed-in member
   * of the workspace who may change the project, from Studio or the API; the URL's page then only
   * shows the request and where to answer it. An answer from Studio or the API records its account.
   */
  approvers?: "anyone" | "members";
}

/** `{ path, equals }`: true when the value at the JSON path `path` (like `"$.data.orderId"`) is `equals`. */
export interface JsonPathEquality {
  path: string;
  equals: string | number | boolean | null;
}

/** An event as a workflow receives it: as the input of a subscribed workflow, or from `waitForEvent`. */
export interface WeftEvent<TData = unknown> {
  id: string;
  name: string;
  data: TData;
  sentAt: string;
}

/**
 * What `ctx.sendEvent` sends; `id` makes the send idempotent for 24 hours, bound to the name and
 * data (another send with the same id throws `EventSendError`). It defaults to one per execution and
 * step name, which answers the step's send run again whatever its data.
 */
export interface EventToSend {
  name: string;
  data?: unknown;
  id?: string;
}

/** What a send did: the executions its subscriptions started. */
export interface EventSent {
  eventId: string;
  executions: { workflow: string; executionId: string }[];
}

export interface WaitForEventOptions {
  /** The event's name. */
  event: string;
  /** Only an event holding `equals` at `path` resumes the wait. */
  match?: JsonPathEquality;
  /** At most 30 days. */
  timeout: Duration;
}

export type EventWaitResult<TData = unknown> = { ok: true; event: WeftEvent<TData> } | { ok: false; reason: "timeout" };

/** `on: [{ event, if? }]`: each send of `event` (that passes `if`) starts the workflow with the event as input. */
export interface EventSubscription {
  event: string;
  if?: JsonPathEquality;
}

/** An event that cancels the workflow's unfinished executions: with `match`, those whose input holds at `match.input` what the event holds at `match.event`. */
export interface CancelOn {
  event: string;
  match?: { event: string; input: string };
}

export type IntegrationKind = "secret" | "http" | "smtp";

/** An `http` integration: its base URL and headers, and `fetch`, which calls under the one with the others. */
export interface HttpIntegration {
  baseUrl: string;
  headers: Record<string, string>;
  /** `path` is joined to the base URL; the integration's headers are added to `init`'s. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

export interface SmtpIntegration {
  host: string;
  port: number;
  user: string;
  password: string;
}

/** What `ctx.integrations.<name>` gives for each kind. */
export interface IntegrationValueOf {
  secret: string;
  http: HttpIntegration;
  smtp: SmtpIntegration;
}

/** A workflow's declared integrations, by name and kind: `{ crm: "http", stripe: "secret" }`. */
export type IntegrationDeclarations = Record<string, IntegrationKind>;

/** `ctx.integrations`, typed from the declarations; reading a name the project lacks fails the step. */
export type IntegrationValues<TDeclared extends IntegrationDeclarations> = {
  readonly [Name in keyof TDeclared]: IntegrationValueOf[TDeclared[Name]];
};

/** What a workflow's `run` receives beside its input. */
export interface WorkflowContext<TIntegrations extends IntegrationDeclarations = IntegrationDeclarations> {
  /**
   * Runs `fn` once per execution: its result is stored, and when the execution is replayed (a retry,
   * crash recovery, a wake-up after `sleep`) the stored result is returned instead of running it
   * again. Names must be unique within an execution; results must be JSON-serializable.
   */
  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>;
  /** A durable timer: the execution releases its worker and resumes after `duration`. */
  sleep(name: string, duration: Duration): Promise<void>;
  /**
   * Creates the wait token `name` without waiting (or, on replay, returns the same one), so that a
   * step can send its URL before `waitForToken`. Token names are apart from step names.
   */
  createToken(name: string, options: TokenOptions): Promise<WaitToken>;
  /**
   * Waits for the token `name`, creating it if `createToken` did not: the execution is `waiting`
   * and releases its worker until the token is completed or times out. A token created before
   * keeps its own timeout (`options` may then be left out).
   */
  waitForToken<TData = unknown>(name: string, options?: TokenOptions): Promise<TokenResult<TData>>;
  /**
   * Sends an event, once: stored like a step named `name` (step names), so a replay does not send
   * it again. It starts, resumes and cancels as `events.send` does.
   */
  sendEvent(name: string, event: EventToSend): Promise<EventSent>;
  /**
   * Waits for the first event named `options.event` (matching `options.match`) sent after the wait
   * began: the execution is `waiting` and releases its worker meanwhile. Its name shares the token
   * namespace.
   */
  waitForEvent<TData = unknown>(name: string, options: WaitForEventOptions): Promise<EventWaitResult<TData>>;
  /**
   * Starts an execution of another workflow of the project (the same deployment) and waits for its
   * end: the execution is `waiting` meanwhile and releases its worker. Returns the child's output,
   * typed from the workflow value when one is given; a child that fails or is cancelled
   * throws a `ChildWorkflowError` naming the child's execution id, and one that outlives `timeout`
   * (30 days at most, and by default) a `ChildWorkflowTimeoutError`. `name` is unique in the
   * execution among steps, sleeps, invokes and starts (and tokens): a replay returns the stored
   * end and never starts the child again. `Promise.all` over invokes and steps runs them at once.
   */
  invoke<TChildInput, TChildOutput>(
    name: string,
    workflow: InvokableWorkflow<TChildInput, TChildOutput>,
    input: TChildInput,
    options?: InvokeOptions,
  ): Promise<TChildOutput>;
  invoke<TChildOutput = unknown>(
    name: string,
    workflow: string,
    input: unknown,
    options?: InvokeOptions,
  ): Promise<TChildOutput>;
  /**
   * `invoke` for many inputs at once: starts one child per input (1 to 1,000) in one transaction and
   * returns their outputs in the inputs' order. The children's waits are named `<name>#<index>`
   * (the name is unique as an invoke's is); the first child, by index, that does not succeed throws.
   */
  invokeMany<TChildInput, TChildOutput>(
    name: string,
    workflow: InvokableWorkflow<TChildInput, TChildOutput>,
    inputs: TChildInput[],
    options?: InvokeOptions,
  ): Promise<TChildOutput[]>;
  invokeMany<TChildOutput = unknown>(
    name: string,
    workflow: string,
    inputs: unknown[],
    options?: InvokeOptions,
  ): Promise<TChildOutput[]>;
  /**
   * Starts an execution of another workflow of the project without waiting for it, and returns its
   * id (stored like a step's result: a replay returns the same id and starts nothing).
   */
  start<TChildInput>(
    name: string,
    workflow: InvokableWorkflow<TChildInput, unknown> | string,
    input: TChildInput,
    options?: StartOptions,
  ): Promise<string>;
  log: WorkflowLogger;
  execution: { id: string; attempt: number };
  /**
   * The project's integrations, decrypted when the attempt started. Their secret values are
   * replaced by `[redacted]` in stored logs and step errors.
   */
  integrations: IntegrationValues<TIntegrations>;
}

/** A workflow value as `ctx.invoke`, `ctx.invokeMany` and `ctx.start` read it: its name, and the types of its input and output. */
export interface InvokableWorkflow<TInput, TOutput> {
  readonly kind: "workflow";
  readonly name: string;
  run(input: TInput, ctx: never): Promise<TOutput>;
}

/** How a child execution is started (`ctx.start`, `ctx.invoke`), as `workflows.run` takes them. */
export interface StartOptions {
  /** Queued to start this long from now: at most a year. */
  delay?: Duration;
  /** From 1 second to 30 days: stored as the run's expiry (a run not started by then is to end `expired`). */
  ttl?: Duration;
  /** At most 10 tags of up to 64 characters (letters, digits and `_ . : / = -`), to list executions by. */
  tags?: string[];
}

export interface InvokeOptions extends StartOptions {
  /** How long to wait for the child's end: at most 30 days, the default. */
  timeout?: Duration;
}

/** `concurrency: { limit, key }`: at most `limit` running per distinct value of `key`. */
export interface ConcurrencyOptions {
  limit: number;
  /** A JSON path into the input, such as `"$.customerId"`. */
  key?: string;
}

/** `throttle` and `rateLimit`: `limit` starts per `period`, counted per distinct value of `key`. */
export interface StartRateOptions {
  limit: number;
  period: Duration;
  /** A JSON path into the input, such as `"$.customerId"`. */
  key?: string;
}

export interface DebounceOptions {
  period: Duration;
  /** A JSON path into the input, such as `"$.customerId"`. */
  key?: string;
}

export interface RetryOptions {
  maxAttempts: number;
  minDelay?: Duration;
  maxDelay?: Duration;
}

export interface WorkflowOptions<
  TInput,
  TOutput,
  TIntegrations extends IntegrationDeclarations = IntegrationDeclarations,
> {
  name: string;
  input?: SchemaDefinition<TInput>;
  retries?: RetryOptions;
  timeout?: Duration;
  /**
   * Most executions of this workflow running at once per project: a number, or `{ limit, key }`
   * to hold the limit per distinct value of `key`, a JSON path into the input (`"$.customerId"`).
   */
  concurrency?: number | ConcurrencyOptions;
  /** Starts beyond `limit` per `period` (per `key`) wait their turn: queued and delayed, never dropped. */
  throttle?: StartRateOptions;
  /** Starts beyond `limit` per `period` (per `key`) are skipped: recorded as cancelled, never run. */
  rateLimit?: StartRateOptions;
  /** A burst of triggers (per `key`) starts one execution, with the last input, `period` after the last trigger. */
  debounce?: DebounceOptions;
  /**
   * Higher runs first among the queued executions of the workspace's workflows that declare flow
   * control: a whole number from -1000 to 1000, or a JSON path to one in the input (`"$.priority"`).
   */
  priority?: number | string;
  /** The integrations `run` reads, with their kinds; deploying is refused while the project lacks one. */
  integrations?: TIntegrations;
  /** The events that start it, with the event (a `WeftEvent`) as input. */
  on?: EventSubscription[];
  /** The events that cancel its queued, running and waiting executions. */
  cancelOn?: CancelOn[];
  run(input: TInput, ctx: WorkflowContext<TIntegrations>): Promise<TOutput>;
}

export interface WorkflowDefinition<
  TInput = unknown,
  TOutput = unknown,
  TIntegrations extends IntegrationDeclarations = IntegrationDeclarations,
> extends WorkflowOptions<TInput, TOutput, TIntegrations> {
  readonly kind: "workflow";
}

export interface BasicAuth {
  username: string;
  password: string;
}

export interface FormOptions {
  name: string;
  workflow: string;
  title?: string;
  description?: string;
  visibility?: "public" | "internal";
  schema: SchemaDefinition;
  basicAuth?: BasicAuth | undefined;
  disabled?: boolean;
  /**
   * Claims the form's name on the whole instance, so that `POST /forms/<name>` needs no `projectId`.
   * The first project to deploy a name holds it until the form leaves its active deployment.
   */
  globalName?: boolean;
}

export interface FormDefinition extends FormOptions {
  readonly kind: "form";
}

/**
 * A webhook starts `workflow` with the call as input, or sends `event` with the call as its data
 * (starting every workflow subscribed to it, resuming the executions waiting for it).
 */
export type WebhookOptions = {
  name: string;
  /** The header the caller must send, and the value it must carry (compared in constant time). */
  secret?: { header: string; value: string | undefined } | undefined;
} & ({ workflow: string; event?: undefined } | { event: string; workflow?: undefined });

export type WebhookDefinition = WebhookOptions & { readonly kind: "webhook" };

/**
 * Starts `workflow` at each tick of `cron` (5 fields: minute hour day-of-month month day-of-week),
 * read in `timezone` (an IANA name, UTC by default), with `{ scheduledFor, ...input }` as input:
 * `scheduledFor` is the tick as an ISO 8601 instant. `enabled: false` deploys it paused.
 */
export interface ScheduleOptions {
  name: string;
  workflow: string;
  cron: string;
  timezone?: string;
  input?: Record<string, unknown>;
  enabled?: boolean;
}

/**
 * A failure notice: when an execution ends `failed`, a mail to each address, or a POST of the
 * notice as JSON to `webhook`, signed with `X-Weft-Signature` (its secret is printed once, by the
 * `weft deploy` that first names the URL). At most one notice per workflow per 5 minutes, counting
 * the failures it stands for.
 */
export type AlertOptions = { on: "failed"; mail: string[] } | { on: "failed"; webhook: string };

export interface WeftConfig {
  /** The project deployments go to; written by `weft deploy --create`. */
  project?: string;
  // biome-ignore lint/suspicious/noExplicitAny: a config holds workflows of many input and output types.
  workflows: WorkflowDefinition<any, any, any>[];
  forms?: (FormOptions | FormDefinition)[];
  webhooks?: (WebhookOptions | WebhookDefinition)[];
  schedules?: ScheduleOptions[];
  alerts?: AlertOptions[];
}

export function workflow<TInput, TOutput, const TIntegrations extends IntegrationDeclarations = Record<never, never>>(
  options: WorkflowOptions<TInput, TOutput, TIntegrations>,
): WorkflowDefinition<TInput, TOutput, TIntegrations> {
  return { ...options, kind: "workflow" };
}

export function form(options: FormOptions): FormDefinition {
  return { ...options, kind: "form" };
}

export function webhook(options: WebhookOptions): WebhookDefinition {
  return { ...options, kind: "webhook" };
}

export function defineConfig(config: WeftConfig): WeftConfig {
  return config;
}
