import { ORPCError } from "@orpc/server";
import type { InputIssue, QuotaRefusal } from "@weft/contract";

/**
 * Constructors for the errors of the contract's catalogue (`rpcErrors` in @weft/contract), so every
 * procedure words the same refusal the same way.
 */
export function badRequest(message: string, issues: InputIssue[]): ORPCError<"BAD_REQUEST", { issues: InputIssue[] }> {
  return new ORPCError("BAD_REQUEST", { status: 400, message, data: { issues } });
}

export function notFound(message: string): ORPCError<"NOT_FOUND", undefined> {
  return new ORPCError("NOT_FOUND", { status: 404, message });
}

export function conflict(message: string): ORPCError<"CONFLICT", undefined> {
  return new ORPCError("CONFLICT", { status: 409, message });
}

export function forbidden(message: string, data: { missingScope?: string; quota?: QuotaRefusal } = {}) {
  return new ORPCError("FORBIDDEN", { status: 403, message, data });
}

export function tooManyRequests(message: string, data: { quota?: QuotaRefusal; retryAfterSeconds?: number } = {}) {
  return new ORPCError("TOO_MANY_REQUESTS", { status: 429, message, data });
}

export function serviceUnavailable(message: string, data: { retryAfterSeconds: number }) {
  return new ORPCError("SERVICE_UNAVAILABLE", { status: 503, message, data });
}

export function unauthorized(message: string): ORPCError<"UNAUTHORIZED", undefined> {
  return new ORPCError("UNAUTHORIZED", { status: 401, message });
}
