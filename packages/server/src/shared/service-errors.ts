import type { ServiceFailure } from "./service-result.ts";

/**
 * Errors that domain services throw for a caller's mistake. Adapters map them: RPC to BAD_REQUEST /
 * NOT_FOUND / CONFLICT, ingress to its own JSON bodies. Messages are safe to show to the caller.
 */
export class InvalidRequestError extends Error {
  override readonly name = "InvalidRequestError";
  readonly issues: { path: string; message: string }[];

  constructor(message: string, issues: { path: string; message: string }[] = []) {
    super(issues.length === 0 ? message : `${message}: ${issues.map(describeIssue).join("; ")}`);
    this.issues = issues;
  }
}

function describeIssue(issue: { path: string; message: string }): string {
  return issue.path === "" ? issue.message : `${issue.path}: ${issue.message}`;
}

export class NotFoundError extends Error {
  override readonly name = "NotFoundError";
}

export type ThingFoundById = "project" | "deployment" | "execution" | "workspace" | "trace";

/**
 * The one wording of "not found" for a thing looked up by id. It names neither the id nor whose
 * the thing is, so that a thing that does not exist and another tenant's read byte for byte alike.
 */
export function notFoundMessage(thing: ThingFoundById): string {
  return `No ${thing} with this id.`;
}

/** The request is valid but the target's state forbids it (cancelling a finished execution). */
export class ConflictError extends Error {
  override readonly name = "ConflictError";
}

/**
 * The thrown form of a `ServiceResult` failure, for a service that still throws and calls one that
 * returns (until every service returns its failures).
 */
export function errorOfFailure(failure: ServiceFailure): Error {
  switch (failure.kind) {
    case "invalid":
      return new InvalidRequestError(failure.message, failure.issues);
    case "not_found":
      return new NotFoundError(failure.message);
    case "conflict":
      return new ConflictError(failure.message);
  }
}
