import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "../http/app-env.ts";
import type { ServiceFailure } from "../shared/service-result.ts";

/**
 * Error codes of the JSON ingress endpoints (programmatic forms, webhooks), each with its status.
 * The body is always `{"error": "<code>", "message": "<text>"}`, plus `issues` for invalid input.
 */
export const ingressErrorStatus = {
  invalid_body: 400,
  invalid_input: 400,
  project_required: 400,
  unauthorized: 401,
  form_disabled: 403,
  /** The caller may not do this (no ingress route refuses by role yet; the mapping is total). */
  forbidden: 403,
  not_found: 404,
  /** The target's state forbids the request: a wait token completed before. */
  conflict: 409,
  /** An Idempotency-Key sent again with another body. */
  idempotency_key_reused: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  /** The workspace's plan has no room for another execution this month. */
  quota_exceeded: 429,
  /** An execution queued in the workspace now would wait past `WEFT_MAX_QUEUE_DELAY`. */
  backlogged: 429,
  /** Over the hot-path budget, the database unreachable, or the platform's queue saturated. */
  unavailable: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type IngressErrorCode = keyof typeof ingressErrorStatus;

export function ingressError(
  c: Context<AppEnv>,
  error: IngressErrorCode,
  message: string,
  extra: { issues?: { path: string; message: string }[]; headers?: Record<string, string> } = {},
): Response {
  const body = extra.issues === undefined ? { error, message } : { error, message, issues: extra.issues };
  return c.json(body, ingressErrorStatus[error], extra.headers);
}

/** The ingress code of a domain service's refusal: one mapping for every JSON and HTML ingress route. */
export function ingressCodeOf(failure: ServiceFailure): IngressErrorCode {
  switch (failure.kind) {
    case "invalid":
      return "invalid_input";
    case "not_found":
      return "not_found";
    case "conflict":
      return failure.reason ?? "conflict";
    case "forbidden":
      return "forbidden";
    case "quota_exceeded":
      return "quota_exceeded";
    case "backlogged":
      return failure.scope === "platform" ? "unavailable" : "backlogged";
  }
}

/** The headers a refusal carries: `Retry-After` when the caller is to send it again later. */
export function ingressFailureHeaders(failure: ServiceFailure): Record<string, string> {
  return failure.kind === "backlogged" ? { "Retry-After": String(failure.retryAfterSeconds) } : {};
}

/**
 * A domain service's refusal as the JSON ingress error body. A quota refusal's message names the
 * quota and the instant it resets.
 */
export function ingressFailure(c: Context<AppEnv>, failure: ServiceFailure): Response {
  return ingressError(c, ingressCodeOf(failure), failure.message, {
    ...(failure.kind === "invalid" ? { issues: failure.issues } : {}),
    headers: ingressFailureHeaders(failure),
  });
}

export const overBudgetMessage = "The submission could not be recorded in time and nothing was saved; retry shortly.";

/** 202 with the ids of the executions the request started (one today; a list so that fan-out can come later). */
export function accepted(c: Context<AppEnv>, message: string, executionIds: string[]): Response {
  return c.json({ message, executionIds }, 202);
}
