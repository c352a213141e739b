import type { ORPCError } from "@orpc/server";
import type { ServiceFailure, ServiceResult } from "../shared/service-result.ts";
import { badRequest, conflict, forbidden, notFound, serviceUnavailable, tooManyRequests } from "./rpc-errors.ts";

/** Issue paths of services are dotted strings; RPC issues carry them as arrays. */
function toPath(path: string): (string | number)[] {
  return path === "" ? [] : path.split(".").map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/**
 * The RPC error of a service failure: invalid → BAD_REQUEST (its issues under `prefix`, the input
 * field the service was given), not_found → NOT_FOUND, conflict → CONFLICT, forbidden → FORBIDDEN,
 * quota_exceeded → TOO_MANY_REQUESTS (a monthly quota) or FORBIDDEN (the project count), with `data.quota`,
 * backlogged → SERVICE_UNAVAILABLE (the platform's queue) or TOO_MANY_REQUESTS (the workspace's), with
 * `data.retryAfterSeconds`.
 */
export function toRpcError(
  failure: ServiceFailure,
  options: { prefix?: (string | number)[] } = {},
): ORPCError<string, unknown> {
  switch (failure.kind) {
    case "invalid":
      return badRequest(
        failure.message,
        failure.issues.map((issue) => ({
          path: [...(options.prefix ?? []), ...toPath(issue.path)],
          message: issue.message,
        })),
      );
    case "not_found":
      return notFound(failure.message);
    case "conflict":
      return conflict(failure.message);
    case "forbidden":
      return forbidden(failure.message);
    case "quota_exceeded":
      // A monthly quota frees up at the reset, so it is a rate; the project count only by deleting one.
      return failure.quota.resetsAt === null
        ? forbidden(failure.message, { quota: failure.quota })
        : tooManyRequests(failure.message, { quota: failure.quota });
    case "backlogged": {
      const data = { retryAfterSeconds: failure.retryAfterSeconds };
      return failure.scope === "platform"
        ? serviceUnavailable(failure.message, data)
        : tooManyRequests(failure.message, data);
    }
  }
}

/** The value of a service result, or its failure thrown as the RPC error that a procedure answers. */
export function valueOrRpcError<T>(result: ServiceResult<T>, options: { prefix?: (string | number)[] } = {}): T {
  if (result.ok) return result.value;
  throw toRpcError(result.failure, options);
}
