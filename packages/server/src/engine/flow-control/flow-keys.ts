import { createHash } from "node:crypto";
import { flowControlLimits, parseJsonPath, valueAtJsonPath, type WorkflowManifest } from "@weft/contract";

/**
 * The limit stored on the executions of a workflow with a priority but no concurrency limit: they
 * take the claim of limited workflows, which orders by priority, and no count reaches it.
 */
export const priorityOnlyLimit = 2_147_483_647;

/** Key values longer than this are stored as their digest: a tenant's input must not size an index entry. */
const longestStoredKey = 128;

/**
 * The value at `path` in `input` as a key: its JSON text (so `"1"` and `1` are two keys), `null`
 * where the path leads nowhere, and the SHA-256 of that text when it is long.
 */
export function keyValue(path: string | undefined, input: unknown): string {
  const segments = path === undefined ? [] : (parseJsonPath(path) ?? []);
  const value = path === undefined ? null : (valueAtJsonPath(input, segments) ?? null);
  const text = JSON.stringify(value) ?? "null";
  return text.length <= longestStoredKey ? text : `sha256:${createHash("sha256").update(text).digest("base64url")}`;
}

/**
 * The priority of an execution: the workflow's number, or the number at its path in the input,
 * truncated and bounded to ±1000; 0 where the path holds no number.
 */
export function priorityOf(workflow: Pick<WorkflowManifest, "priority">, input: unknown): number {
  const { priority } = workflow;
  if (priority === undefined) return 0;
  const value = typeof priority === "number" ? priority : valueAtJsonPath(input, parseJsonPath(priority) ?? []);
  if (typeof value !== "number" || !Number.isFinite(value)) return 0;
  return Math.max(-flowControlLimits.priority, Math.min(flowControlLimits.priority, Math.trunc(value)));
}

/** The columns an execution's claim reads its flow control from, computed at enqueue. */
export function claimColumnsOf(
  workflow: WorkflowManifest,
  input: unknown,
): { concurrencyLimit: number | null; concurrencyKey: string | null; priority: number } {
  return {
    concurrencyLimit: workflow.concurrency ?? (workflow.priority === undefined ? null : priorityOnlyLimit),
    concurrencyKey:
      workflow.concurrency !== undefined && workflow.concurrencyKey !== undefined
        ? keyValue(workflow.concurrencyKey, input)
        : null,
    priority: priorityOf(workflow, input),
  };
}

/** What an enqueue must settle in the database before the execution's row is written. */
export interface Admission {
  rateLimit?: { key: string; limit: number; periodMs: number };
  throttle?: { key: string; limit: number; periodMs: number };
  debounce?: { key: string; periodMs: number };
}

/** The workflow's throttle, rate limit and debounce for this input, or undefined when it has none. */
export function admissionOf(workflow: WorkflowManifest, input: unknown): Admission | undefined {
  const { throttle, rateLimit, debounce } = workflow;
  if (throttle === undefined && rateLimit === undefined && debounce === undefined) return undefined;
  return {
    ...(rateLimit === undefined
      ? {}
      : { rateLimit: { key: keyValue(rateLimit.key, input), limit: rateLimit.limit, periodMs: rateLimit.periodMs } }),
    ...(throttle === undefined
      ? {}
      : { throttle: { key: keyValue(throttle.key, input), limit: throttle.limit, periodMs: throttle.periodMs } }),
    ...(debounce === undefined
      ? {}
      : { debounce: { key: keyValue(debounce.key, input), periodMs: debounce.periodMs } }),
  };
}

/** Whether any flow control applies: such an execution is never started on the spot by the worker of its process. */
export function hasFlowControl(workflow: WorkflowManifest): boolean {
  return (
    workflow.concurrency !== undefined ||
    workflow.priority !== undefined ||
    workflow.throttle !== undefined ||
    workflow.rateLimit !== undefined ||
    workflow.debounce !== undefined
  );
}
