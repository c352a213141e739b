import * as z from "zod";
import { quotaRefusalSchema } from "./quota-refusal.ts";

/** One problem with a request's input, as a client can show it next to the field. */
export const inputIssueSchema = z.object({
  /** Where in the input, e.g. `["pagination", "first"]`. */
  path: z.array(z.union([z.string(), z.number()])),
  message: z.string(),
});
export type InputIssue = z.infer<typeof inputIssueSchema>;

/**
 * The catalogue of RPC errors, with one HTTP status each. Every procedure may raise any
 * of them, so clients see them as typed ("defined") errors.
 */
export const rpcErrors = {
  UNAUTHORIZED: {
    status: 401,
    message: "Authentication is missing or invalid.",
  },
  FORBIDDEN: {
    status: 403,
    message: "You lack access to this resource.",
    data: z.object({
      /** The scope the credential would need, when a scope is what is missing. */
      missingScope: z.string().optional(),
      /** The quota a creation would exceed (`projects.create` over the project quota). */
      quota: quotaRefusalSchema.optional(),
    }),
  },
  BAD_REQUEST: {
    status: 400,
    message: "The request is malformed or has invalid parameters.",
    data: z.object({ issues: z.array(inputIssueSchema) }),
  },
  NOT_FOUND: {
    status: 404,
    message: "The resource does not exist.",
  },
  CONFLICT: {
    status: 409,
    message: "The resource's current state forbids this change: a name in use, or a change made meanwhile.",
  },
  TOO_MANY_REQUESTS: {
    status: 429,
    message: "Too many requests; back off and retry later.",
    data: z.object({
      /** The exhausted quota, when a quota is why (`workflows.run`). */
      quota: quotaRefusalSchema.optional(),
      /** Seconds to wait before retrying, as the `Retry-After` header says: the workspace's queue is backlogged. */
      retryAfterSeconds: z.number().int().positive().optional(),
    }),
  },
  INTERNAL_SERVER_ERROR: {
    status: 500,
    message: "Unexpected server error.",
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    message: "The service cannot take the request now; retry after the time it names.",
    data: z.object({
      /**
       * Seconds to wait before retrying, as the `Retry-After` header says: the database cannot be
       * reached, or executions already queued wait too long for a worker (`workflows.run`).
       */
      retryAfterSeconds: z.number().int().positive(),
    }),
  },
} as const;

export type RpcErrorCode = keyof typeof rpcErrors;
