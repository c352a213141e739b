import type { WorkflowManifest } from "@weft/contract";

export interface RetryPolicy {
  maxAttempts: number;
  minDelayMs: number;
  maxDelayMs: number;
}

/** Without a `retries` option a workflow gets three attempts, one second to one minute apart. */
export const defaultRetryPolicy: RetryPolicy = { maxAttempts: 3, minDelayMs: 1000, maxDelayMs: 60_000 };

export function retryPolicyOf(workflow: WorkflowManifest): RetryPolicy {
  return workflow.retries ?? defaultRetryPolicy;
}

/**
 * Delay before the attempt after `failedAttempt` (1-based): exponential from minDelay, capped at
 * maxDelay, with "equal jitter" (half fixed, half random) so that a burst of failures does not come
 * back in lock-step yet the delay never drops below half the exponential step or below minDelay.
 */
export function retryDelayMs(policy: RetryPolicy, failedAttempt: number, random: () => number = Math.random): number {
  const exponential = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** Math.max(0, failedAttempt - 1));
  const jittered = exponential / 2 + random() * (exponential / 2);
  return Math.round(Math.min(policy.maxDelayMs, Math.max(policy.minDelayMs, jittered)));
}
