import type { QuotaRefusal } from "@weft/contract";

/**
 * What a domain service answers. An expected refusal (bad input, an unknown or foreign id, a state
 * or name that forbids the change) is a value, never a throw, so that TypeScript makes every
 * adapter decide what to do with it; each surface turns a failure into its own error body in one
 * place (`rpc/service-failure.ts`, `ingress/ingress-errors.ts`). Throws are for the unexpected.
 * Messages are safe to show to the caller.
 */
export type ServiceResult<T> = { ok: true; value: T } | { ok: false; failure: ServiceFailure };

export type ServiceFailure =
  /** The input cannot be used; `issues` point at the fields (dotted paths, "" for the whole input). */
  | { kind: "invalid"; message: string; issues: ServiceIssue[] }
  /** The target does not exist, or belongs to someone the caller may not see: the same answer. */
  | { kind: "not_found"; message: string }
  /** The request is valid but the target's state forbids it: a name in use, a finished execution. */
  | { kind: "conflict"; message: string; reason?: ConflictReason }
  /** The caller sees the target but their role does not allow this change. */
  | { kind: "forbidden"; message: string }
  /** The workspace's plan has no room left: a monthly quota until it resets, or its project count. */
  | { kind: "quota_exceeded"; message: string; quota: QuotaRefusal }
  /** Executions wait too long for a worker (`backpressure/`): nothing was queued; try again later. */
  | ({ kind: "backlogged" } & BacklogRefusal);

/**
 * Why a new execution is not queued while executions already queued wait too long: `platform`,
 * one the workers could start now has waited past the bound (everyone is refused); `workspace`,
 * the workspace's own oldest has (only it is refused).
 */
export interface BacklogRefusal {
  scope: "platform" | "workspace";
  message: string;
  /** When to send the request again, in seconds: the `Retry-After` of the answer. */
  retryAfterSeconds: number;
}

/**
 * A conflict that a client must tell apart from the others, so that ingress names it in its `error`
 * code: an idempotency key sent again with another request.
 */
export type ConflictReason = "idempotency_key_reused";

export interface ServiceIssue {
  path: string;
  message: string;
}

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export type ThingFoundById =
  | "project"
  | "deployment"
  | "execution"
  | "workspace"
  | "trace"
  | "member"
  | "invitation"
  | "agent"
  | "federation policy";

/**
 * The one wording of "not found" for a thing looked up by id. It names neither the id nor whose
 * the thing is, so that a thing that does not exist and another tenant's read byte for byte alike.
 */
export function notFoundMessage(thing: ThingFoundById): string {
  return `No ${thing} with this id.`;
}

/** Constructors of the failures, so that a service reads `return fail.conflict("…")`. */
export const fail = {
  invalid(message: string, issues: ServiceIssue[] = []): { ok: false; failure: ServiceFailure } {
    const detail = issues.length === 0 ? message : `${message}: ${issues.map(describeIssue).join("; ")}`;
    return { ok: false, failure: { kind: "invalid", message: detail, issues } };
  },
  /** A thing looked up by id (the uniform wording), or a message naming what is missing. */
  notFound(what: ThingFoundById | { message: string }): { ok: false; failure: ServiceFailure } {
    return {
      ok: false,
      failure: { kind: "not_found", message: typeof what === "string" ? notFoundMessage(what) : what.message },
    };
  },
  conflict(message: string, reason?: ConflictReason): { ok: false; failure: ServiceFailure } {
    return { ok: false, failure: { kind: "conflict", message, ...(reason === undefined ? {} : { reason }) } };
  },
  forbidden(message: string): { ok: false; failure: ServiceFailure } {
    return { ok: false, failure: { kind: "forbidden", message } };
  },
  quotaExceeded(exceeded: { message: string; quota: QuotaRefusal }): { ok: false; failure: ServiceFailure } {
    return { ok: false, failure: { kind: "quota_exceeded", message: exceeded.message, quota: exceeded.quota } };
  },
  backlogged(refusal: BacklogRefusal): { ok: false; failure: ServiceFailure } {
    return { ok: false, failure: { kind: "backlogged", ...refusal } };
  },
};

function describeIssue(issue: ServiceIssue): string {
  return issue.path === "" ? issue.message : `${issue.path}: ${issue.message}`;
}

/**
 * The value of a result whose failure the caller has already ruled out (ingress enqueues for a
 * deployment it has just resolved): a failure there is a bug, so it throws like one.
 */
export function valueOrThrow<T>(result: ServiceResult<T>): T {
  if (result.ok) return result.value;
  throw new Error(`unexpected ${result.failure.kind} failure: ${result.failure.message}`);
}
