import type { ExecutionError } from "../db/schema/index.ts";

/** Applies to every attempt of a workflow without a `timeout` of its own (`WEFT_DEFAULT_TIMEOUT`). */
export const defaultAttemptTimeoutMs = 15 * 60 * 1000;

export interface TimeoutPolicy {
  defaultTimeoutMs: number;
  /** Caps every workflow's timeout, its own included (`WEFT_MAX_TIMEOUT`); none when undefined. */
  maxTimeoutMs?: number | undefined;
}

/** An attempt's time limit, and which rule set it (for the error message). */
export interface AttemptTimeout {
  ms: number;
  source: "workflow" | "default" | "maximum";
}

/**
 * The time limit of one attempt. Why every attempt has one: without it a workflow stuck in a loop
 * or on a request that never answers held its worker slot until a person noticed.
 */
export function attemptTimeout(workflowTimeoutMs: number | null, policy: TimeoutPolicy): AttemptTimeout {
  const own: AttemptTimeout =
    workflowTimeoutMs === null
      ? { ms: policy.defaultTimeoutMs, source: "default" }
      : { ms: workflowTimeoutMs, source: "workflow" };
  if (policy.maxTimeoutMs !== undefined && own.ms > policy.maxTimeoutMs) {
    return { ms: policy.maxTimeoutMs, source: "maximum" };
  }
  return own;
}

const rules: Record<AttemptTimeout["source"], string> = {
  workflow: "the workflow's timeout",
  default: "the default timeout (WEFT_DEFAULT_TIMEOUT)",
  maximum: "the platform's maximum timeout (WEFT_MAX_TIMEOUT)",
};

export function timeoutError(timeout: AttemptTimeout): ExecutionError {
  return { name: "TimeoutError", message: `the attempt exceeded ${rules[timeout.source]} of ${timeout.ms} ms` };
}
