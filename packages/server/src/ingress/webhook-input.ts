import type { WebhookInput } from "@weft/contract";
import { checkStorableJson, describeUnstorable, parseStorableJson } from "../shared/storable-json.ts";

/** Headers never kept in an execution's input, whatever the webhook. */
export const sensitiveHeaders: ReadonlySet<string> = new Set([
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
  "x-auth-token",
  "x-csrf-token",
]);

export interface WebhookRequest {
  method: string;
  headers: Iterable<[string, string]>;
  url: string;
  rawBody: string;
  /** The webhook's secret header, dropped like the other credentials. */
  secretHeader: string | undefined;
}

export type WebhookInputResult = { ok: true; input: WebhookInput } | { ok: false; message: string };

export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const mediaType = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  return mediaType === "application/json" || mediaType.endsWith("+json");
}

function queryOf(url: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  if (!url.includes("?")) return query;
  for (const [name, value] of new URL(url).searchParams) {
    const previous = query[name];
    if (previous === undefined) query[name] = value;
    else query[name] = Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  return query;
}

export function buildWebhookInput(request: WebhookRequest): WebhookInputResult {
  const headers: Record<string, string> = {};
  for (const [name, value] of request.headers) {
    const lower = name.toLowerCase();
    if (sensitiveHeaders.has(lower) || lower === request.secretHeader) continue;
    headers[lower] = value;
  }
  let body: unknown = request.rawBody === "" ? null : request.rawBody;
  if (request.rawBody !== "" && isJsonContentType(headers["content-type"])) {
    const parsed = parseStorableJson(request.rawBody);
    if (!parsed.ok) return { ok: false, message: parsed.message };
    body = parsed.value;
  }
  const input: WebhookInput = { body, headers, query: queryOf(request.url), method: request.method };
  // Text bodies and query values are stored as they came: `%00` there is as fatal to PostgreSQL as in JSON.
  for (const part of ["body", "query", "headers"] as const) {
    const check = checkStorableJson(input[part]);
    if (!check.ok) {
      return {
        ok: false,
        message: `The call cannot be accepted: ${describeUnstorable({ ...check, path: [part, ...check.path] })}.`,
      };
    }
  }
  return { ok: true, input };
}
