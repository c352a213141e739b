/**
 * Entry point of a sandbox child process: loads one deployment's bundle and runs workflow
 * executions the parent hands it, over the IPC channel. It runs under Node's permission model with
 * file reads limited to the bundle and this file, so it imports only `node:` built-ins.
 * Message shapes: see protocol.ts.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

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
interface RunMessage {
  type: "run";
  executionId: string;
  workflow: string;
  input: unknown;
  attempt: number;
  steps: Record<string, { kind: "step" | "sleep"; result: { value?: unknown } }>;
}
interface StepStoredMessage {
  type: "stepStored";
  executionId: string;
  sequence: number;
  stop?: "cancelled" | "abandoned";
}
type Incoming = RunMessage | StepStoredMessage | { type: "abandon"; executionId: string };

interface ExecutionState {
  abandoned: boolean;
  logs: LogEntry[];
  names: Set<string>;
  sequence: number;
  waiting: Map<number, (message: StepStoredMessage) => void>;
}

const send = (message: unknown): void => {
  process.send?.(message);
};
const stepScope = new AsyncLocalStorage<LogEntry[]>();
const executions = new Map<string, ExecutionState>();
let workflows: Workflow[] = [];

function serializeError(error: unknown): SerializedError {
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { name: "Error", message: typeof error === "string" ? error : (JSON.stringify(error) ?? String(error)) };
}

/** Results must survive JSON (they are stored as jsonb); `{}` stands for undefined. */
function toResult(value: unknown): { value?: unknown } {
  if (value === undefined) return {};
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError("a step result must be JSON-serializable");
  return { value: JSON.parse(text) };
}

/** A promise that never settles: an abandoned or suspended execution simply stops here. */
const halt = <T>(): Promise<T> => new Promise<T>(() => undefined);

function createLogger(state: ExecutionState) {
  const write = (level: Level) => (message: string, fields?: Record<string, unknown>) => {
    const entry: LogEntry = { at: new Date().toISOString(), level, message: String(message), fields };
    (stepScope.getStore() ?? state.logs).push(entry);
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

function parseDuration(duration: unknown): number {
  if (typeof duration === "number" && Number.isFinite(duration) && duration >= 0) return Math.round(duration);
  const match = typeof duration === "string" ? /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(duration) : null;
  if (match === null) throw new RangeError(`${String(duration)} is not a duration like "500ms", "3s" or "5m"`);
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  return Math.round(Number(match[1]) * (units[match[2] ?? "ms"] ?? 1));
}

function claimName(state: ExecutionState, name: unknown): string {
  if (typeof name !== "string" || name === "") throw new TypeError("a step needs a non-empty name");
  if (state.names.has(name)) throw new Error(`the step name "${name}" is used twice in this execution`);
  state.names.add(name);
  return name;
}

function createContext(message: RunMessage, state: ExecutionState) {
  return {
    execution: { id: message.executionId, attempt: message.attempt },
    log: createLogger(state),
    step: async <T>(rawName: string, fn: () => T | Promise<T>): Promise<T> => {
      const name = claimName(state, rawName);
      const stored = message.steps[name];
      if (stored !== undefined) return stored.result.value as T;
      if (state.abandoned) return halt();
      const logs: LogEntry[] = [];
      const started = performance.now();
      let outcome: { ok: true; result: { value?: unknown } } | { ok: false; error: SerializedError };
      let thrown: unknown;
      try {
        outcome = { ok: true, result: toResult(await stepScope.run(logs, fn)) };
      } catch (error) {
        thrown = error;
        outcome = { ok: false, error: serializeError(error) };
      }
      const durationMs = performance.now() - started;
      state.sequence += 1;
      const sequence = state.sequence;
      const answer = new Promise<StepStoredMessage>((resolve) => state.waiting.set(sequence, resolve));
      send({ type: "step", executionId: message.executionId, sequence, name, outcome, durationMs, logs });
      const reply = await answer;
      if (reply.stop !== undefined || state.abandoned) {
        state.abandoned = true;
        return halt();
      }
      if (!outcome.ok) throw thrown;
      return outcome.result.value as T;
    },
    sleep: async (rawName: string, duration: unknown): Promise<void> => {
      const name = claimName(state, rawName);
      if (message.steps[name] !== undefined) return;
      const durationMs = parseDuration(duration);
      if (state.abandoned) return halt();
      state.abandoned = true;
      send({ type: "sleep", executionId: message.executionId, name, durationMs, logs: state.logs.splice(0) });
      return halt();
    },
  };
}

async function run(message: RunMessage): Promise<void> {
  const state: ExecutionState = { abandoned: false, logs: [], names: new Set(), sequence: 0, waiting: new Map() };
  executions.set(message.executionId, state);
  let outcome: { ok: true; result: { value?: unknown } } | { ok: false; error: SerializedError };
  try {
    const workflow = workflows.find((candidate) => candidate.name === message.workflow);
    if (workflow === undefined) throw new Error(`the bundle defines no workflow "${message.workflow}"`);
    outcome = { ok: true, result: toResult(await workflow.run(message.input, createContext(message, state))) };
  } catch (error) {
    outcome = { ok: false, error: serializeError(error) };
  }
  executions.delete(message.executionId);
  if (state.abandoned) return;
  send({ type: "finished", executionId: message.executionId, outcome, logs: state.logs });
}

process.on("message", (message: Incoming) => {
  if (message.type === "run") {
    void run(message);
    return;
  }
  const state = executions.get(message.executionId);
  if (state === undefined) return;
  if (message.type === "abandon") {
    state.abandoned = true;
    for (const resolve of state.waiting.values()) resolve({ ...message, type: "stepStored", sequence: 0 });
    state.waiting.clear();
    return;
  }
  const resolve = state.waiting.get(message.sequence);
  state.waiting.delete(message.sequence);
  resolve?.(message);
});

// One workflow's stray promise must not take down the executions running beside it.
process.on("unhandledRejection", () => undefined);

// The parent died or let go of this child: nothing may run unsupervised.
process.on("disconnect", () => process.exit(0));

try {
  const bundlePath = process.argv[2];
  if (bundlePath === undefined) throw new Error("no bundle path given");
  const loaded = (await import(pathToFileURL(bundlePath).href)) as { default?: { workflows?: unknown } };
  const exported = loaded.default?.workflows;
  if (!Array.isArray(exported)) throw new Error("the bundle's default export has no workflows array");
  workflows = exported as Workflow[];
  send({ type: "ready" });
} catch (error) {
  send({ type: "loadFailed", error: serializeError(error) });
  process.exitCode = 1;
  process.disconnect?.();
}
