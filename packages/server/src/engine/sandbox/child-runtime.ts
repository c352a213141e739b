/**
 * Entry point of a sandbox child process: loads one deployment's bundle and runs workflow
 * executions the parent hands it, over the framed channel at fd 3 (channel-frames.ts). It runs
 * under Node's permission model with file reads limited to the bundle and its runtime files, so it
 * imports only `node:` built-ins and the framing. Message shapes: see protocol.ts. Limits: the
 * figures of limits.ts, repeated here.
 *
 * Whatever user code returns, throws or logs, this file never throws while reporting it: every
 * user value is read under try/catch and turned into plain JSON (or a clear error) before it is
 * written to the channel: a BigInt or a cycle would otherwise throw and leave the execution running
 * with nobody to report its end.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { Socket } from "node:net";
import { dirname } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { createFrameDecoder, encodeFrame } from "./channel-frames.ts";

type Level = "debug" | "info" | "warn" | "error";
interface LogEntry {
  at: string;
  level: Level;
  message: string;
  fields?: Record<string, unknown> | undefined;
}
interface SerializedError {
  name: string;
  message: string;
  stack?: string | undefined;
}
interface Workflow {
  name: string;
  run(input: unknown, ctx: unknown): Promise<unknown>;
}
type TokenResult = { ok: true; data: unknown } | { ok: false; reason: "timeout" };
type IntegrationValues =
  | { kind: "secret"; value: string }
  | { kind: "http"; baseUrl: string; headers: Record<string, string> }
  | { kind: "smtp"; host: string; port: number; user: string; password: string };
interface RunMessage {
  type: "run";
  executionId: string;
  workflow: string;
  input: unknown;
  attempt: number;
  steps: Record<string, { kind: "step" | "sleep"; result: { value?: unknown } }>;
  tokens: Record<string, { id: string; url: string; result?: TokenResult }>;
  integrations: Record<string, IntegrationValues>;
}
interface StepStoredMessage {
  type: "stepStored";
  executionId: string;
  sequence: number;
  stop?: "cancelled" | "abandoned";
  error?: SerializedError;
}
interface TokenAnswerMessage {
  type: "tokenAnswer";
  executionId: string;
  sequence: number;
  token?: { id: string; url: string };
  result?: TokenResult;
  stop?: "cancelled" | "abandoned" | "waiting";
  error?: SerializedError;
}
interface EventSentMessage {
  type: "eventSent";
  executionId: string;
  sequence: number;
  sent?: { eventId: string; executions: { workflow: string; executionId: string }[] };
  stop?: "cancelled" | "abandoned";
  error?: SerializedError;
}
interface ChildStartedMessage {
  type: "childStarted";
  executionId: string;
  sequence: number;
  childExecutionId?: string;
  childExecutionIds?: string[];
  stop?: "cancelled" | "abandoned";
  error?: SerializedError;
}
type Reply = StepStoredMessage | TokenAnswerMessage | EventSentMessage | ChildStartedMessage;
type Incoming =
  | RunMessage
  | Reply
  | { type: "abandon"; executionId: string }
  | { type: "cancelRequested"; executionId: string };
type Outcome = { ok: true; result: { value?: unknown } } | { ok: false; error: SerializedError };

interface ExecutionState {
  abandoned: boolean;
  logs: LogEntry[];
  names: Set<string>;
  /** Names of the tokens created, and of those waited for (each once). */
  tokenNames: Set<string>;
  waitedTokens: Set<string>;
  sequence: number;
  waiting: Map<number, (message: Reply) => void>;
  /**
   * Stored steps, sleeps and token results the code has yet to pass again: while some are left it
   * is replaying what an earlier attempt ran, whose log lines outside steps are stored already.
   */
  replaysLeft: number;
  /** Steps and child starts under way: an invoke waits (and the execution may let go of its worker) only once none is. */
  busy: number;
  /** Invokes waiting for `busy` to come back to 0. */
  idle: (() => void)[];
  /**
   * The invokes' waits, one at a time in call order: the worker decides one wait at a time (one
   * asked while another is decided is refused, stopping the execution), and the first whose child
   * has not ended makes the execution wait.
   */
  waitTurn: Promise<unknown>;
  /** The workflow's `run` has returned or thrown: what its stray calls ask is never sent. */
  ended: boolean;
  /** Steps the workflow went on from before their answers came (`storeBehind`), until they come. */
  unstored: Set<Promise<void>>;
  /** The worker heard of a cancel, which its answer to the next step honours: no step goes ahead of it. */
  cancelRequested: boolean;
  /** `performance.now()` as the run arrived: each step says when it started counted from it. */
  arrivedAt: number;
}

const KiB = 1024;
const MiB = 1024 * KiB;
const limits = {
  stepResultBytes: 4 * MiB,
  outputBytes: 4 * MiB,
  logLineBytes: 16 * KiB,
  stepNameLength: 200,
  sleepMs: 365 * 24 * 60 * 60 * 1000,
  tokenTimeoutMs: 30 * 24 * 60 * 60 * 1000,
  tokenTitleLength: 200,
  tokenDescriptionLength: 2000,
  tokenFields: 20,
  tokenFieldLabelLength: 100,
  tokenFieldValueLength: 1000,
  jsonDepth: 64,
  errorNameLength: 200,
  errorTextLength: 16 * KiB,
  channelFrameBytes: 16 * MiB,
  /** A step whose message is larger waits for its answer: its refusal stays an error `ctx.step` throws. */
  storedBehindBytes: 64 * KiB,
  /** Steps of one execution the workflow may run past before their answers come. */
  storedBehindSteps: 64,
};
/** What the worker sends (replays included) is bounded by what it stores; this only guards the child. */
const incomingFrameBytes = 1024 * MiB;

// Taken before the bundle loads: user code may replace the globals, not these references.
const { stringify, parse } = JSON;
// The worker's end of fd 3. Bytes user code writes to it itself end this child, not the worker.
const channel = new Socket({ fd: 3, readable: true, writable: true });
const { byteLength } = Buffer;
const platformFetch = globalThis.fetch;
const PlatformHeaders = globalThis.Headers;

const stepScope = new AsyncLocalStorage<LogEntry[]>();
const executions = new Map<string, ExecutionState>();

/**
 * Steps are stored behind the workflow only where whatever it sends out of the sandbox passes the
 * egress forwarder (egress-forwarder.ts), which holds each byte until the steps reported before it
 * are stored. Requests to the worker wait for them too (`exchange`), so nothing outside the
 * sandbox sees a step's effects before the steps before it are stored.
 */
const holdEgress = (globalThis as Record<symbol, unknown>)[Symbol.for("weft.holdEgress")];
const storesBehind = typeof holdEgress === "function";
if (typeof holdEgress === "function") holdEgress(unstoredSteps);
let workflows: Workflow[] = [];

/** `message` as JSON text of at most `maxBytes`, or undefined when it cannot be. */
function jsonWithin(message: unknown, maxBytes: number): string | undefined {
  try {
    const text: unknown = stringify(message);
    return typeof text === "string" && byteLength(text) <= maxBytes ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Sends `message`, or `fallback` if it cannot be written as JSON or is over the size of a frame
 * (the parent's timeout is the last resort). `write` answering false only means the frame is
 * queued behind others: it still goes.
 */
function report(message: unknown, fallback?: unknown): void {
  for (const candidate of fallback === undefined ? [message] : [message, fallback]) {
    const text = jsonWithin(candidate, limits.channelFrameBytes);
    if (text === undefined) continue;
    channel.write(encodeFrame(text));
    return;
  }
}

function attempt<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

function namedError(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

function errorFrom(serialized: SerializedError): Error {
  const error = namedError(serialized.name, serialized.message);
  if (serialized.stack !== undefined) error.stack = serialized.stack;
  return error;
}

/** Text PostgreSQL can store, at most `max` characters: for error messages, which are shown, not refused. */
function storableText(text: string, max: number): string {
  const clamped = text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
  return clamped.toWellFormed().replaceAll("\u0000", "\uFFFD");
}

/** Words for any value, never throwing (getters, Proxy traps and `toString` may all throw). */
function describe(value: unknown): string {
  switch (typeof value) {
    case "string":
      return value;
    case "bigint":
      return `${value}n`;
    case "symbol":
      return attempt(() => value.toString(), "a symbol");
    case "function":
      return "a function";
    case "undefined":
      return "undefined";
    case "object": {
      if (value === null) return "null";
      const json = attempt<unknown>(() => stringify(value), undefined);
      if (typeof json === "string") return json;
      const text = attempt<unknown>(() => String(value), undefined);
      return typeof text === "string" ? text : "an object that cannot be described";
    }
    default:
      return String(value);
  }
}

function serializeError(error: unknown): SerializedError {
  if (!attempt(() => error instanceof Error, false)) {
    return { name: "Error", message: storableText(describe(error), limits.errorTextLength) };
  }
  const read = (key: "name" | "message" | "stack") => attempt<unknown>(() => (error as Error)[key], undefined);
  const name = read("name");
  const message = read("message");
  const stack = read("stack");
  return {
    name: typeof name === "string" && name !== "" ? storableText(name, limits.errorNameLength) : "Error",
    message:
      message === undefined
        ? "(the error's message could not be read)"
        : storableText(describe(message), limits.errorTextLength),
    stack: typeof stack === "string" ? storableStack(relativeToBundle(stack)) : undefined,
  };
}

/**
 * A stack within the error text's limit that keeps its call frames: its first line repeats the
 * message, which can be a whole upstream page, and clamping the text as a whole would cut off the
 * frames that say where in the project the error was thrown.
 */
function storableStack(stack: string): string {
  if (stack.length <= limits.errorTextLength) return storableText(stack, limits.errorTextLength);
  const framesAt = stack.search(/\n\s+at /);
  if (framesAt < 0) return storableText(stack, limits.errorTextLength);
  const frames = storableText(stack.slice(framesAt), limits.errorTextLength / 2);
  return `${storableText(stack.slice(0, framesAt), limits.errorTextLength - frames.length)}${frames}`;
}

/**
 * The bundle's source map names the project's files relative to the bundle; its directory is the
 * sandbox's, not the person's, so frames read `weft.config.ts:12:7`.
 */
let bundleDirectory: { path: string; url: string } | undefined;
function relativeToBundle(stack: string): string {
  if (bundleDirectory === undefined) return stack;
  return stack.replaceAll(bundleDirectory.url, "").replaceAll(bundleDirectory.path, "");
}

function formatPath(path: (string | number)[]): string {
  if (path.length === 0) return "(root)";
  return path
    .map((segment, index) => {
      if (typeof segment === "number") return `[${segment}]`;
      if (!/^[A-Za-z_$][\w$]*$/.test(segment)) return `[${stringify(segment)}]`;
      return index === 0 ? segment : `.${segment}`;
    })
    .join("");
}

function stringProblem(text: string): string | undefined {
  if (text.includes("\u0000")) return "contains a NUL character (\\u0000), which cannot be stored";
  if (!text.isWellFormed()) return "contains a lone UTF-16 surrogate, which is not valid Unicode text";
  return undefined;
}

/** The first string (value or key) PostgreSQL would refuse in a parsed JSON value, or too deep a nesting. */
function unstorable(value: unknown): string | undefined {
  const pending: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value: current, path } = next;
    if (typeof current === "string") {
      const problem = stringProblem(current);
      if (problem !== undefined) return `${formatPath(path)} ${problem}`;
      continue;
    }
    if (typeof current !== "object" || current === null) continue;
    if (path.length >= limits.jsonDepth)
      return `${formatPath(path)} is nested more than ${limits.jsonDepth} levels deep`;
    for (const [key, child] of Object.entries(current)) {
      const problem = Array.isArray(current) ? undefined : stringProblem(key);
      const childPath = [...path, Array.isArray(current) ? Number(key) : key];
      if (problem !== undefined) return `${formatPath(childPath)} ${problem}`;
      pending.push({ value: child, path: childPath });
    }
  }
  return undefined;
}

function formatBytes(bytes: number): string {
  if (bytes >= MiB) return `${(bytes / MiB).toFixed(1)} MiB`;
  if (bytes >= KiB) return `${(bytes / KiB).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

function formatLimit(bytes: number): string {
  return bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${bytes / KiB} KiB`;
}

type Stored = { ok: true; result: { value?: unknown }; bytes: number } | { ok: false; error: SerializedError };

/**
 * A value as it will be stored (a JSON copy; `{}` stands for undefined), or the error that says why
 * it cannot be: not JSON, over `maxBytes`, or holding a string PostgreSQL refuses.
 */
function toStored(value: unknown, what: string, maxBytes: number, tooLargeName: string): Stored {
  if (value === undefined) return { ok: true, result: {}, bytes: 0 };
  let text: unknown;
  try {
    text = stringify(value);
  } catch (error) {
    const reason = serializeError(error);
    const message = `${what} cannot be stored as JSON: ${reason.name}: ${reason.message}`;
    return { ok: false, error: { name: "UnstorableValueError", message } };
  }
  if (typeof text !== "string") {
    const message = `${what} is ${describe(value)}, which JSON cannot represent`;
    return { ok: false, error: { name: "UnstorableValueError", message } };
  }
  const bytes = byteLength(text);
  if (bytes > maxBytes) {
    const message = `${what} is ${formatBytes(bytes)}; the limit is ${formatLimit(maxBytes)}`;
    return { ok: false, error: { name: tooLargeName, message } };
  }
  const copy: unknown = parse(text);
  const problem = unstorable(copy);
  if (problem !== undefined) {
    return { ok: false, error: { name: "UnstorableValueError", message: `${what} cannot be stored: ${problem}` } };
  }
  return { ok: true, result: { value: copy }, bytes };
}

/** A promise that never settles: an abandoned or suspended execution simply stops here. */
const halt = <T>(): Promise<T> => new Promise<T>(() => undefined);

/** A log line as stored, or a thrown error naming why it cannot be (the step, or the attempt, then fails). */
function logEntry(level: Level, message: unknown, fields: unknown): LogEntry {
  const text = typeof message === "string" ? message : describe(message);
  const textProblem = stringProblem(text);
  if (textProblem !== undefined) throw namedError("UnstorableValueError", `a log message ${textProblem}`);
  let storedFields: Record<string, unknown> | undefined;
  let fieldsBytes = 0;
  if (fields !== undefined) {
    const stored = toStored(fields, "the fields of a log line", limits.logLineBytes, "LogLineTooLargeError");
    if (!stored.ok) throw errorFrom(stored.error);
    const value = stored.result.value;
    storedFields =
      typeof value === "object" && value !== null && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : { value };
    fieldsBytes = stored.bytes;
  }
  const bytes = byteLength(text) + fieldsBytes;
  if (bytes > limits.logLineBytes) {
    throw namedError(
      "LogLineTooLargeError",
      `a log line (message and fields) is ${formatBytes(bytes)}; the limit is ${formatLimit(limits.logLineBytes)}`,
    );
  }
  return { at: new Date().toISOString(), level, message: text, fields: storedFields };
}

function createLogger(state: ExecutionState) {
  const write = (level: Level) => (message: unknown, fields?: unknown) => {
    const entry = logEntry(level, message, fields);
    const stepLogs = stepScope.getStore();
    if (stepLogs !== undefined) stepLogs.push(entry);
    else if (state.replaysLeft === 0) state.logs.push(entry);
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

function parseDuration(duration: unknown): number {
  let durationMs: number;
  if (typeof duration === "number" && Number.isFinite(duration) && duration >= 0) {
    durationMs = Math.round(duration);
  } else {
    const match = typeof duration === "string" ? /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(duration) : null;
    if (match === null) {
      throw new RangeError(`${storableText(describe(duration), 200)} is not a duration like "500ms", "3s" or "5m"`);
    }
    const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
    durationMs = Math.round(Number(match[1]) * (units[match[2] ?? "ms"] ?? 1));
  }
  return durationMs;
}

function sleepDuration(name: string, duration: unknown): number {
  const durationMs = parseDuration(duration);
  if (durationMs > limits.sleepMs) {
    throw namedError(
      "SleepTooLongError",
      `the sleep "${name}" lasts ${durationMs} ms; the limit is 1 year (${limits.sleepMs} ms)`,
    );
  }
  return durationMs;
}

/**
 * A step's or a token's name: a non-empty storable string, no longer than a step name may be. Token
 * names live in a namespace of their own (`createToken` then `waitForToken` share one).
 */
function checkedName(of: "step" | "token", name: unknown): string {
  if (typeof name !== "string" || name === "") throw new TypeError(`a ${of} needs a non-empty name`);
  if (name.length > limits.stepNameLength) {
    throw namedError(
      "StepNameTooLongError",
      `a ${of} name is ${name.length} characters long; the limit is ${limits.stepNameLength}`,
    );
  }
  const problem = stringProblem(name);
  if (problem !== undefined) throw namedError("UnstorableValueError", `a ${of} name ${problem}`);
  return name;
}

function claimName(state: ExecutionState, rawName: unknown): string {
  const name = checkedName("step", rawName);
  if (state.names.has(name)) throw new Error(`the step name "${name}" is used twice in this execution`);
  state.names.add(name);
  return name;
}

function tokenTimeout(name: string, options: unknown): number {
  const timeout = attempt<unknown>(() => (options as { timeout?: unknown } | undefined)?.timeout, undefined);
  if (timeout === undefined) throw new TypeError(`the token "${name}" needs a timeout, like { timeout: "3d" }`);
  const timeoutMs = parseDuration(timeout);
  if (timeoutMs > limits.tokenTimeoutMs) {
    throw namedError(
      "TokenTimeoutTooLongError",
      `the token "${name}" times out after ${timeoutMs} ms; the limit is 30 days (${limits.tokenTimeoutMs} ms)`,
    );
  }
  return timeoutMs;
}

/** What a token shows the person who answers it, and who may: checked here to throw where the workflow asked. */
interface TokenDetails {
  title?: string;
  description?: string;
  fields?: { label: string; value: string }[];
  approvers?: "anyone" | "members";
}

function detailText(name: string, what: string, value: unknown, maxLength: number): string {
  if (typeof value !== "string") throw new TypeError(`the token "${name}": ${what} must be a string`);
  if (value.length > maxLength) {
    throw namedError(
      "TokenDetailsError",
      `the token "${name}": ${what} is ${value.length} characters long; the limit is ${maxLength}`,
    );
  }
  const problem = stringProblem(value);
  if (problem !== undefined) throw namedError("UnstorableValueError", `the token "${name}": ${what} ${problem}`);
  // Shown on one line in a terminal and a page: no control characters (a description may break lines).
  const lineBreaks = what === "description" ? /[\t\n]/g : undefined;
  if (/\p{Cc}/u.test(lineBreaks === undefined ? value : value.replace(lineBreaks, " "))) {
    throw namedError(
      "TokenDetailsError",
      `the token "${name}": ${what} contains a control character${what === "description" ? " other than a line break or tab" : ""}`,
    );
  }
  return value;
}

function tokenDetails(name: string, options: unknown): TokenDetails {
  const read = (key: string): unknown => attempt<unknown>(() => (options as Record<string, unknown>)?.[key], undefined);
  const details: TokenDetails = {};
  const title = read("title");
  if (title !== undefined) details.title = detailText(name, "title", title, limits.tokenTitleLength);
  const description = read("description");
  if (description !== undefined) {
    details.description = detailText(name, "description", description, limits.tokenDescriptionLength);
  }
  const fields = read("fields");
  if (fields !== undefined) {
    if (!Array.isArray(fields)) throw new TypeError(`the token "${name}": fields must be a list of { label, value }`);
    if (fields.length > limits.tokenFields) {
      throw namedError(
        "TokenDetailsError",
        `the token "${name}" has ${fields.length} fields; the limit is ${limits.tokenFields}`,
      );
    }
    details.fields = fields.map((field: unknown, index) => {
      const entry = (field ?? {}) as { label?: unknown; value?: unknown };
      const value =
        typeof entry.value === "number" || typeof entry.value === "boolean" ? String(entry.value) : entry.value;
      return {
        label: detailText(name, `fields[${index}].label`, entry.label, limits.tokenFieldLabelLength),
        value: detailText(name, `fields[${index}].value`, value, limits.tokenFieldValueLength),
      };
    });
  }
  const approvers = read("approvers");
  if (approvers !== undefined) {
    if (approvers !== "anyone" && approvers !== "members") {
      throw new TypeError(`the token "${name}": approvers must be "anyone" or "members"`);
    }
    details.approvers = approvers;
  }
  return details;
}

function reportError(what: string): SerializedError {
  return {
    name: "SandboxReportError",
    message: `${what} could not be sent to the worker: it cannot be written as JSON, or with its logs it is over ${formatLimit(limits.channelFrameBytes)}`,
  };
}

/** `path` under the integration's base URL, whichever of the two carries the slash between them. */
function underBaseUrl(baseUrl: string, path: unknown): string {
  if (typeof path !== "string") throw new TypeError('an integration\'s fetch needs a path, like "/v1/items"');
  return `${baseUrl.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}

/** What `ctx.integrations.<name>` gives for each kind: a string, the fields, or an http client. */
function integrationValue(values: IntegrationValues): unknown {
  if (values.kind === "secret") return values.value;
  if (values.kind === "smtp")
    return { host: values.host, port: values.port, user: values.user, password: values.password };
  const { baseUrl, headers } = values;
  return {
    baseUrl,
    headers: { ...headers },
    fetch: (path: unknown, init?: RequestInit): Promise<Response> => {
      const merged = new PlatformHeaders(init?.headers);
      for (const [name, value] of Object.entries(headers)) merged.set(name, value);
      return platformFetch(underBaseUrl(baseUrl, path), { ...init, headers: merged });
    },
  };
}

/** `ctx.integrations`: reading a name the project lacks throws, naming it, so the step reading it fails. */
function createIntegrations(available: Record<string, IntegrationValues>): Record<string, unknown> {
  return new Proxy(
    {},
    {
      get: (_target, name) => {
        // Not a thenable, so that awaiting the object (or a library probing it) reads no name.
        if (typeof name !== "string" || name === "then") return undefined;
        const values = Object.hasOwn(available, name) ? available[name] : undefined;
        if (values === undefined) {
          throw namedError("IntegrationNotFoundError", `the project has no integration "${storableText(name, 200)}"`);
        }
        return integrationValue(values);
      },
      has: (_target, name) => typeof name === "string" && Object.hasOwn(available, name),
      ownKeys: () => Object.keys(available),
      getOwnPropertyDescriptor: (_target, name) =>
        typeof name === "string" && Object.hasOwn(available, name)
          ? { enumerable: true, configurable: true, value: integrationValue(available[name] as IntegrationValues) }
          : undefined,
    },
  );
}

/** Resolves once the steps of every execution reported so far are answered; undefined when none waits. */
function unstoredSteps(): Promise<unknown> | undefined {
  const steps: Promise<void>[] = [];
  for (const state of executions.values()) steps.push(...state.unstored);
  return steps.length === 0 ? undefined : Promise.all(steps);
}

/** Waits until the steps the execution went on from are stored; one stopped or ended meanwhile halts here. */
async function stored(state: ExecutionState): Promise<void> {
  while (state.unstored.size > 0) await Promise.all(state.unstored);
  if (state.abandoned || state.ended) return halt();
}

/** The execution's next sequence number, and the answer the worker will give under it. */
function nextAnswer(state: ExecutionState): { sequence: number; answer: Promise<Reply> } {
  state.sequence += 1;
  const sequence = state.sequence;
  return { sequence, answer: new Promise<Reply>((resolve) => state.waiting.set(sequence, resolve)) };
}

/** The answer: a stop (or the execution abandoned meanwhile) halts the execution here, a refusal is thrown. */
async function answered(state: ExecutionState, answer: Promise<Reply>): Promise<Reply> {
  const reply = await answer;
  if (reply.stop !== undefined || state.abandoned) {
    state.abandoned = true;
    return halt();
  }
  if (reply.error !== undefined) throw errorFrom(reply.error);
  return reply;
}

/** Sends the worker one request once the execution's steps are stored, and waits for the answer. */
async function exchange(state: ExecutionState, send: (sequence: number) => void): Promise<Reply> {
  await stored(state);
  const { sequence, answer } = nextAnswer(state);
  send(sequence);
  return answered(state, answer);
}

/**
 * Whether the execution may go on from its next small step before the worker has stored it. Not
 * once it is abandoned: the worker may have let go of it, and would then answer no step of it.
 */
function mayGoAhead(state: ExecutionState): boolean {
  if (!storesBehind || state.abandoned || state.ended || state.cancelRequested) return false;
  return state.unstored.size < limits.storedBehindSteps;
}

/**
 * Counts a step the workflow went on from as unstored until its answer comes. The worker never
 * answers such a step with a refusal: it ends the process instead, with whatever it held back. A
 * stop halts the execution at its next call.
 */
function storeBehind(state: ExecutionState, answer: Promise<Reply>): void {
  const step: Promise<void> = answer.then((reply) => {
    state.unstored.delete(step);
    if (reply.stop !== undefined || reply.error !== undefined) state.abandoned = true;
  });
  state.unstored.add(step);
}

/** Asks the worker to create the token or wait for it; a stop halts the execution here. */
async function askWorker(
  message: RunMessage,
  state: ExecutionState,
  asked: { name: string; timeoutMs: number; wait: boolean; details?: TokenDetails | undefined },
): Promise<TokenAnswerMessage> {
  const { name, timeoutMs, wait, details } = asked;
  if (state.abandoned) return halt();
  const reply = await exchange(state, (sequence) => {
    // A wait's logs are stored with it if the execution waits (and it halts); otherwise they stay for the next end.
    const logs = wait ? [...state.logs] : [];
    const request = { type: "token", executionId: message.executionId, sequence, name, timeoutMs, wait, details };
    report({ ...request, logs }, { ...request, logs: [] });
  });
  if (reply.type !== "tokenAnswer" || reply.token === undefined) {
    throw namedError("SandboxProtocolError", "the worker answered a token request without a token");
  }
  return reply;
}

/**
 * `ctx.step`: a stored step is replayed; a new one runs, and the worker stores its outcome. A small
 * result is returned before the answer where egress is held (`storeBehind`); a large one, or an
 * error, once the worker has stored it.
 */
async function runStep<T>(
  message: RunMessage,
  state: ExecutionState,
  rawName: string,
  fn: () => T | Promise<T>,
): Promise<T> {
  const name = claimName(state, rawName);
  if (Object.hasOwn(message.steps, name)) {
    state.replaysLeft = Math.max(0, state.replaysLeft - 1);
    return message.steps[name]?.result.value as T;
  }
  if (state.abandoned) return halt();
  const logs: LogEntry[] = [];
  const started = performance.now();
  let outcome: Outcome;
  let thrown: unknown;
  try {
    const stored = toStored(
      await stepScope.run(logs, fn),
      `the result of step "${name}"`,
      limits.stepResultBytes,
      "StepResultTooLargeError",
    );
    outcome = stored.ok ? { ok: true, result: stored.result } : stored;
    if (!stored.ok) thrown = errorFrom(stored.error);
  } catch (error) {
    thrown = error;
    outcome = { ok: false, error: serializeError(error) };
  }
  const durationMs = performance.now() - started;
  const { sequence, answer } = nextAnswer(state);
  const startedMs = started - state.arrivedAt;
  const step = { type: "step", executionId: message.executionId, sequence, name, durationMs, startedMs };
  if (outcome.ok && mayGoAhead(state)) {
    const ahead = jsonWithin({ ...step, outcome, logs, ahead: true }, limits.storedBehindBytes);
    if (ahead !== undefined) {
      channel.write(encodeFrame(ahead));
      storeBehind(state, answer);
      return outcome.result.value as T;
    }
  }
  report({ ...step, outcome, logs }, { ...step, outcome: { ok: false, error: reportError("the step") }, logs: [] });
  await answered(state, answer);
  if (!outcome.ok) throw thrown;
  return outcome.result.value as T;
}

/** How a wait for an event ended, as `ctx.waitForEvent` returns it: the wait's token carries the event. */
function eventWaitResult(result: TokenResult): unknown {
  return result.ok ? { ok: true, event: result.data } : result;
}

type EventMatch = { path: string; equals: string | number | boolean | null };

/** `waitForEvent`'s `event` and `match`, in the shapes the worker checks further (the name's and the path's rules). */
function eventWaitOptions(name: string, options: unknown): { name: string; match?: EventMatch } {
  const read = (key: string): unknown => attempt<unknown>(() => (options as Record<string, unknown>)?.[key], undefined);
  const event = read("event");
  if (typeof event !== "string") {
    throw new TypeError(`the wait "${name}" needs the event's name, like { event: "order.paid", timeout: "1d" }`);
  }
  const match = read("match");
  if (match === undefined) return { name: event };
  const path = attempt<unknown>(() => (match as Record<string, unknown>)?.path, undefined);
  const equals = attempt<unknown>(() => (match as Record<string, unknown>)?.equals, undefined);
  const scalar = equals === null || ["string", "number", "boolean"].includes(typeof equals);
  if (typeof path !== "string" || !scalar || (typeof equals === "number" && !Number.isFinite(equals))) {
    throw new TypeError(
      `the wait "${name}": match must be { path, equals } with a JSON path and a string, number, boolean or null`,
    );
  }
  if (typeof equals === "string" && equals.length > 1000) {
    throw namedError("EventWaitError", `the wait "${name}": match.equals is over 1000 characters`);
  }
  return { name: event, match: { path, equals: equals as EventMatch["equals"] } };
}

/** Asks the worker to wait for an event; the execution halts here while it waits. */
async function askEventWait(
  message: RunMessage,
  state: ExecutionState,
  asked: { name: string; timeoutMs: number; event: { name: string; match?: EventMatch } },
): Promise<TokenAnswerMessage> {
  if (state.abandoned) return halt();
  const reply = await exchange(state, (sequence) => {
    const request = { type: "eventWait", executionId: message.executionId, sequence, ...asked };
    report({ ...request, logs: [...state.logs] }, { ...request, logs: [] });
  });
  if (reply.type !== "tokenAnswer" || reply.result === undefined) {
    throw namedError("SandboxProtocolError", "the worker answered a wait for an event without its result");
  }
  return reply;
}

/** Asks the worker to send an event, from inside the step `step` that stores the answer. */
async function askSendEvent(
  message: RunMessage,
  state: ExecutionState,
  step: string,
  event: unknown,
): Promise<unknown> {
  const read = (key: string): unknown => attempt<unknown>(() => (event as Record<string, unknown>)?.[key], undefined);
  const name = read("name");
  if (typeof name !== "string") {
    throw new TypeError('ctx.sendEvent needs an event with a name, like { name: "order.created", data: {} }');
  }
  const id = read("id");
  if (id !== undefined && typeof id !== "string") throw new TypeError("an event's id must be a string");
  const data = toStored(read("data"), "the event's data", limits.stepResultBytes, "EventDataTooLargeError");
  if (!data.ok) throw errorFrom(data.error);
  if (state.abandoned) return halt();
  const sent = { name, data: data.result.value ?? null, ...(id === undefined ? {} : { id }) };
  const reply = await exchange(state, (sequence) =>
    report({ type: "sendEvent", executionId: message.executionId, sequence, step, event: sent }),
  );
  if (reply.type !== "eventSent" || reply.sent === undefined) {
    throw namedError("SandboxProtocolError", "the worker answered a sent event without its result");
  }
  return reply.sent;
}

/** Counts `run` as under way until it settles (one that halts stays so: its execution has stopped). */
function tracked<T>(state: ExecutionState, run: () => Promise<T>): Promise<T> {
  state.busy += 1;
  let promise: Promise<T>;
  try {
    promise = run();
  } catch (error) {
    promise = Promise.reject(error);
  }
  const done = () => {
    state.busy -= 1;
    if (state.busy === 0) for (const resume of state.idle.splice(0)) setImmediate(resume);
  };
  promise.then(done, done);
  return promise;
}

/**
 * Resolves once no step or child start is under way, a turn of the event loop later: the other
 * calls of a `Promise.all` are started (and their steps stored) before an invoke's wait may end
 * the attempt, so a fan-out starts every child in one attempt and loses no finished step.
 */
function settled(state: ExecutionState): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (state.busy === 0) resolve();
      else state.idle.push(check);
    };
    setImmediate(check);
  });
}

/** The callee's name: a workflow's name, or the workflow value (`defineWorkflow`'s) holding it. */
function calleeName(workflow: unknown): string {
  const name =
    typeof workflow === "string" ? workflow : attempt(() => (workflow as { name?: unknown })?.name, undefined);
  if (typeof name !== "string" || name === "") {
    throw new TypeError("a child workflow is named by its name or given as the workflow value");
  }
  return name;
}

/** `ctx.start`'s and `ctx.invoke`'s options the worker checks (delay, ttl, tags), read without trusting getters. */
function startOptionsOf(options: unknown): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const key of ["delay", "ttl", "tags"]) {
    const value = attempt<unknown>(() => (options as Record<string, unknown> | undefined)?.[key], undefined);
    if (value !== undefined) picked[key] = value;
  }
  return picked;
}

/** The start options as the worker stores them; options too large to store are thrown. */
function storedStartOptions(name: string, options: unknown): unknown {
  const stored = toStored(
    startOptionsOf(options),
    `the options of "${name}"`,
    limits.logLineBytes,
    "OptionsTooLargeError",
  );
  if (!stored.ok) throw errorFrom(stored.error);
  return stored.result.value;
}

/** Asks the worker to start a child execution; the answer is its id. */
async function askStartChild(
  message: RunMessage,
  state: ExecutionState,
  asked: { name: string; workflow: string; input: unknown; wait: boolean; timeoutMs: number; options: unknown },
): Promise<string> {
  const input = toStored(
    asked.input,
    `the input of the child "${asked.name}"`,
    limits.outputBytes,
    "InputTooLargeError",
  );
  if (!input.ok) throw errorFrom(input.error);
  const options = storedStartOptions(asked.name, asked.options);
  if (state.abandoned) return halt();
  const reply = await exchange(state, (sequence) =>
    report({
      type: "startChild",
      executionId: message.executionId,
      sequence,
      name: asked.name,
      workflow: asked.workflow,
      input: input.result.value ?? null,
      wait: asked.wait,
      timeoutMs: asked.timeoutMs,
      options,
    }),
  );
  if (reply.type !== "childStarted" || reply.childExecutionId === undefined) {
    throw namedError("SandboxProtocolError", "the worker answered a child's start without its execution id");
  }
  return reply.childExecutionId;
}

/** Takes `name` as the token a child's end is stored in and waited for: unique among invokes, steps and tokens. */
function claimChildWait(state: ExecutionState, name: string): void {
  if (state.tokenNames.has(name) || state.waitedTokens.has(name)) {
    throw new Error(`the name "${name}" is used twice in this execution (invokes, steps and tokens share names)`);
  }
  state.tokenNames.add(name);
  state.waitedTokens.add(name);
}

/** How long an invoke waits for its children: the `timeout` option, or a token's longest wait without one. */
function childTimeout(name: string, options: unknown): number {
  const hasTimeout = attempt<unknown>(() => (options as { timeout?: unknown })?.timeout, undefined) !== undefined;
  return hasTimeout ? tokenTimeout(name, options) : limits.tokenTimeoutMs;
}

/** What an invoke returns for the child's end: its output, or a thrown error naming the child's execution. */
function childResult(name: string, workflow: string, result: TokenResult): unknown {
  if (!result.ok) {
    throw namedError(
      "ChildWorkflowTimeoutError",
      `the child workflow "${workflow}" invoked as "${name}" did not end within its timeout`,
    );
  }
  const end = (result.data ?? {}) as {
    executionId?: string;
    status?: string;
    output?: unknown;
    error?: SerializedError;
  };
  if (end.status === "succeeded") return end.output ?? undefined;
  const error = namedError(
    "ChildWorkflowError",
    `the child execution ${end.executionId ?? "(unknown)"} of "${workflow}" (invoked as "${name}") ${end.status ?? "ended"}${
      end.error === undefined || end.error === null ? "" : `: ${end.error.name}: ${end.error.message}`
    }`,
  );
  throw error;
}

/**
 * `ctx.invoke`: starts the child (once: a replay finds its wait) and waits for its end, which the
 * child's end statement stores in the parent's wait of the same name. Its name is a step's and a
 * token's: unique among both.
 */
async function invokeChild(
  message: RunMessage,
  state: ExecutionState,
  call: { rawName: string; workflow: unknown; input: unknown; options: unknown },
): Promise<unknown> {
  const name = claimName(state, call.rawName);
  claimChildWait(state, name);
  const workflow = calleeName(call.workflow);
  const stored = Object.hasOwn(message.tokens, name) ? message.tokens[name] : undefined;
  if (stored?.result !== undefined) {
    state.replaysLeft = Math.max(0, state.replaysLeft - 1);
    return childResult(name, workflow, stored.result);
  }
  if (stored === undefined) {
    const timeoutMs = childTimeout(name, call.options);
    await tracked(state, () =>
      askStartChild(message, state, {
        name,
        workflow,
        input: call.input,
        wait: true,
        timeoutMs,
        options: call.options,
      }),
    );
  }
  await settled(state);
  // A wait asked once the workflow has ended (a `Promise.all` rejected by another of its calls) would
  // hold the attempt the end is reporting: it is never asked.
  const turn = state.waitTurn.then(() =>
    state.ended ? halt<TokenAnswerMessage>() : askWorker(message, state, { name, timeoutMs: 0, wait: true }),
  );
  // After a refused wait, the next waits a turn of the event loop: the refusal may end the workflow first.
  state.waitTurn = turn.catch(() => new Promise((resolve) => setImmediate(resolve)));
  const reply = await turn;
  if (reply.result === undefined) {
    throw namedError("SandboxProtocolError", "the worker answered a wait without the child's end");
  }
  return childResult(name, workflow, reply.result);
}

/** The most children one `ctx.invokeMany` starts. */
const maxInvokeMany = 1000;

/** Asks the worker to start the children of `ctx.invokeMany` in one transaction; the answer is their ids. */
async function askStartChildren(
  message: RunMessage,
  state: ExecutionState,
  asked: { name: string; workflow: string; inputs: unknown[]; timeoutMs: number; options: unknown },
): Promise<string[]> {
  const inputs: unknown[] = [];
  let bytes = 0;
  for (const [index, given] of asked.inputs.entries()) {
    const input = toStored(given, `input ${index} of "${asked.name}"`, limits.outputBytes, "InputTooLargeError");
    if (!input.ok) throw errorFrom(input.error);
    bytes += input.bytes;
    inputs.push(input.result.value ?? null);
  }
  if (bytes > limits.outputBytes) {
    throw namedError(
      "InputTooLargeError",
      `the inputs of "${asked.name}" are ${formatBytes(bytes)}; the limit is ${formatLimit(limits.outputBytes)} together`,
    );
  }
  const options = storedStartOptions(asked.name, asked.options);
  if (state.abandoned) return halt();
  const { name, workflow, timeoutMs } = asked;
  const reply = await exchange(state, (sequence) =>
    report({
      type: "startChildren",
      executionId: message.executionId,
      sequence,
      name,
      workflow,
      inputs,
      timeoutMs,
      options,
    }),
  );
  if (reply.type !== "childStarted" || reply.childExecutionIds?.length !== inputs.length) {
    throw namedError("SandboxProtocolError", "the worker answered the start of children without their ids");
  }
  return reply.childExecutionIds;
}

/**
 * `ctx.invokeMany`: starts one child per input in one transaction (once: a replay finds their
 * waits, `<name>#<index>`) and waits for each in turn. The outputs come in the inputs' order; the
 * first child (by index) that did not succeed throws.
 */
async function invokeChildren(
  message: RunMessage,
  state: ExecutionState,
  call: { rawName: string; workflow: unknown; inputs: unknown; options: unknown },
): Promise<unknown[]> {
  const name = claimName(state, call.rawName);
  if (name.length > limits.stepNameLength - 5) {
    throw namedError("StepNameTooLongError", `an invokeMany name is at most ${limits.stepNameLength - 5} characters`);
  }
  const inputs = attempt(() => (Array.isArray(call.inputs) ? [...call.inputs] : undefined), undefined);
  if (inputs === undefined || inputs.length === 0 || inputs.length > maxInvokeMany) {
    throw new TypeError(`ctx.invokeMany("${name}", …) takes an array of 1 to ${maxInvokeMany} inputs`);
  }
  const names = inputs.map((_, index) => `${name}#${index}`);
  for (const each of names) claimChildWait(state, each);
  const workflow = calleeName(call.workflow);
  if (!Object.hasOwn(message.tokens, names[0] ?? "")) {
    const timeoutMs = childTimeout(name, call.options);
    await tracked(state, () =>
      askStartChildren(message, state, { name, workflow, inputs, timeoutMs, options: call.options }),
    );
  }
  const outputs: unknown[] = [];
  for (const each of names) {
    const stored = Object.hasOwn(message.tokens, each) ? message.tokens[each] : undefined;
    if (stored?.result !== undefined) {
      state.replaysLeft = Math.max(0, state.replaysLeft - 1);
      outputs.push(childResult(each, workflow, stored.result));
      continue;
    }
    await settled(state);
    const turn = state.waitTurn.then(() =>
      state.ended ? halt<TokenAnswerMessage>() : askWorker(message, state, { name: each, timeoutMs: 0, wait: true }),
    );
    state.waitTurn = turn.catch(() => new Promise((resolve) => setImmediate(resolve)));
    const reply = await turn;
    if (reply.result === undefined) {
      throw namedError("SandboxProtocolError", "the worker answered a wait without the child's end");
    }
    outputs.push(childResult(each, workflow, reply.result));
  }
  return outputs;
}

function createContext(message: RunMessage, state: ExecutionState) {
  return {
    execution: { id: message.executionId, attempt: message.attempt },
    integrations: createIntegrations(message.integrations),
    log: createLogger(state),
    step: <T>(rawName: string, fn: () => T | Promise<T>): Promise<T> =>
      tracked(state, () => runStep(message, state, rawName, fn)),
    invoke: (rawName: string, workflow: unknown, input: unknown, options?: unknown): Promise<unknown> =>
      invokeChild(message, state, { rawName, workflow, input, options }),
    invokeMany: (rawName: string, workflow: unknown, inputs: unknown, options?: unknown): Promise<unknown[]> =>
      invokeChildren(message, state, { rawName, workflow, inputs, options }),
    start: async (rawName: string, workflow: unknown, input: unknown, options?: unknown): Promise<unknown> => {
      const name = claimName(state, rawName);
      if (Object.hasOwn(message.steps, name)) {
        state.replaysLeft = Math.max(0, state.replaysLeft - 1);
        return message.steps[name]?.result.value;
      }
      const callee = calleeName(workflow);
      return tracked(state, () =>
        askStartChild(message, state, { name, workflow: callee, input, wait: false, timeoutMs: 0, options }),
      );
    },
    sleep: async (rawName: string, duration: unknown): Promise<void> => {
      const name = claimName(state, rawName);
      if (Object.hasOwn(message.steps, name)) {
        state.replaysLeft = Math.max(0, state.replaysLeft - 1);
        return;
      }
      const durationMs = sleepDuration(name, duration);
      if (state.abandoned) return halt();
      await stored(state);
      state.abandoned = true;
      const sleep = { type: "sleep", executionId: message.executionId, name, durationMs };
      const logs = state.logs.splice(0);
      report({ ...sleep, logs }, { ...sleep, logs: [] });
      return halt();
    },
    createToken: async (rawName: string, options: unknown): Promise<{ id: string; url: string }> => {
      const name = checkedName("token", rawName);
      if (state.tokenNames.has(name)) throw new Error(`the token "${name}" is created twice in this execution`);
      state.tokenNames.add(name);
      const stored = Object.hasOwn(message.tokens, name) ? message.tokens[name] : undefined;
      if (stored !== undefined) return { id: stored.id, url: stored.url };
      const timeoutMs = tokenTimeout(name, options);
      const details = tokenDetails(name, options);
      const reply = await askWorker(message, state, { name, timeoutMs, wait: false, details });
      return { id: reply.token?.id ?? "", url: reply.token?.url ?? "" };
    },
    waitForToken: async (rawName: string, options?: unknown): Promise<TokenResult> => {
      const name = checkedName("token", rawName);
      if (state.waitedTokens.has(name)) throw new Error(`the token "${name}" is waited for twice in this execution`);
      state.waitedTokens.add(name);
      const stored = Object.hasOwn(message.tokens, name) ? message.tokens[name] : undefined;
      if (stored?.result !== undefined) {
        state.replaysLeft = Math.max(0, state.replaysLeft - 1);
        return stored.result;
      }
      // A token created before keeps its own timeout, counted from its creation.
      const created = stored !== undefined || state.tokenNames.has(name);
      state.tokenNames.add(name);
      const timeoutMs = created ? 0 : tokenTimeout(name, options);
      const details = created ? undefined : tokenDetails(name, options);
      const reply = await askWorker(message, state, { name, timeoutMs, wait: true, details });
      if (reply.result === undefined) {
        throw namedError("SandboxProtocolError", "the worker answered a wait without the token's result");
      }
      return reply.result;
    },
    sendEvent: (rawName: string, event: unknown): Promise<unknown> =>
      runStep(message, state, rawName, () => askSendEvent(message, state, rawName, event)),
    waitForEvent: async (rawName: string, options: unknown): Promise<unknown> => {
      const name = checkedName("token", rawName);
      if (state.waitedTokens.has(name) || state.tokenNames.has(name)) {
        throw new Error(`the name "${name}" is used twice in this execution (waits and tokens share names)`);
      }
      state.waitedTokens.add(name);
      state.tokenNames.add(name);
      const stored = Object.hasOwn(message.tokens, name) ? message.tokens[name] : undefined;
      if (stored?.result !== undefined) {
        state.replaysLeft = Math.max(0, state.replaysLeft - 1);
        return eventWaitResult(stored.result);
      }
      const event = eventWaitOptions(name, options);
      const reply = await askEventWait(message, state, { name, timeoutMs: tokenTimeout(name, options), event });
      return eventWaitResult(reply.result as TokenResult);
    },
  };
}

async function run(message: RunMessage): Promise<void> {
  const state: ExecutionState = {
    abandoned: false,
    logs: [],
    names: new Set(),
    tokenNames: new Set(),
    waitedTokens: new Set(),
    sequence: 0,
    waiting: new Map(),
    busy: 0,
    idle: [],
    waitTurn: Promise.resolve(),
    ended: false,
    unstored: new Set(),
    cancelRequested: false,
    arrivedAt: performance.now(),
    replaysLeft:
      Object.keys(message.steps).length +
      Object.values(message.tokens).filter((token) => token.result !== undefined).length,
  };
  executions.set(message.executionId, state);
  let outcome: Outcome;
  try {
    const workflow = workflows.find((candidate) => candidate.name === message.workflow);
    if (workflow === undefined) throw new Error(`the bundle defines no workflow "${message.workflow}"`);
    const value = await workflow.run(message.input, createContext(message, state));
    const stored = toStored(value, "the output of the workflow", limits.outputBytes, "OutputTooLargeError");
    outcome = stored.ok ? { ok: true, result: stored.result } : stored;
  } catch (error) {
    outcome = { ok: false, error: serializeError(error) };
  }
  state.ended = true;
  while (state.unstored.size > 0) await Promise.all(state.unstored);
  executions.delete(message.executionId);
  if (state.abandoned) return;
  const finished = { type: "finished", executionId: message.executionId };
  report(
    { ...finished, outcome, logs: state.logs },
    { ...finished, outcome: { ok: false, error: reportError("the outcome") }, logs: [] },
  );
}

function receive(message: Incoming): void {
  if (message.type === "run") {
    run(message).catch(() => {
      // Only a poisoned built-in gets here; the parent still needs an end for this attempt.
      report({
        type: "finished",
        executionId: message.executionId,
        outcome: { ok: false, error: reportError("the outcome") },
        logs: [],
      });
    });
    return;
  }
  const state = executions.get(message.executionId);
  if (state === undefined) return;
  if (message.type === "cancelRequested") {
    state.cancelRequested = true;
    return;
  }
  if (message.type === "abandon") {
    state.abandoned = true;
    for (const resolve of state.waiting.values()) resolve({ ...message, type: "stepStored", sequence: 0 });
    state.waiting.clear();
    return;
  }
  const resolve = state.waiting.get(message.sequence);
  state.waiting.delete(message.sequence);
  resolve?.(message);
}

const decoder = createFrameDecoder(incomingFrameBytes);
channel.on("data", (chunk: Buffer) => {
  const decoded = decoder.push(chunk);
  for (const text of decoded.frames) receive(parse(text) as Incoming);
  // Only the worker writes this way: bytes it cannot read mean nothing here can be trusted to go on.
  if (!decoded.ok) process.exit(1);
});
channel.on("error", () => process.exit(0));

// One workflow's stray promise must not take down the executions running beside it.
process.on("unhandledRejection", () => undefined);

// The parent died or let go of this child: nothing may run unsupervised.
channel.on("end", () => process.exit(0));

try {
  const bundlePath = process.argv[2];
  if (bundlePath === undefined) throw new Error("no bundle path given");
  bundleDirectory = { path: `${dirname(bundlePath)}/`, url: `${pathToFileURL(dirname(bundlePath)).href}/` };
  const loaded = (await import(pathToFileURL(bundlePath).href)) as { default?: { workflows?: unknown } };
  const exported = loaded.default?.workflows;
  if (!Array.isArray(exported)) throw new Error("the bundle's default export has no workflows array");
  workflows = exported as Workflow[];
  report({ type: "ready" });
} catch (error) {
  report({ type: "loadFailed", error: serializeError(error) });
  process.exitCode = 1;
  channel.end();
}
