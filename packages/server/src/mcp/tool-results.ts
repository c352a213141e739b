import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ORPCError } from "@orpc/server";
import type { InputIssue } from "@weft/contract";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Fields that name what a result is about, in the order a reader looks for them. */
const identifyingFields = ["id", "executionId", "name", "status", "traceId", "deploymentId"] as const;

/**
 * One line saying what a procedure answered, for clients that show text only; the whole answer is
 * the `structuredContent`.
 */
export function summarize(procedure: string, output: unknown): string {
  if (!isRecord(output)) return `${procedure}: done.`;
  const { results, data, totalCount, pagination, nextCursor } = output;
  if (Array.isArray(results)) {
    const total = typeof totalCount === "number" ? ` of ${totalCount}` : "";
    const more =
      isRecord(pagination) && pagination.hasNextPage === true ? `; more after ${String(pagination.endCursor)}` : "";
    return `${procedure}: ${results.length} result(s)${total}${more}.`;
  }
  if (Array.isArray(data)) {
    const more = typeof nextCursor === "string" ? `; more after ${nextCursor}` : "";
    return `${procedure}: ${data.length} item(s)${more}.`;
  }
  const named = identifyingFields
    .filter((field) => typeof output[field] === "string")
    .map((field) => `${field} ${String(output[field])}`);
  return named.length === 0 ? `${procedure}: done.` : `${procedure}: ${named.join(", ")}.`;
}

export function toolSuccess(procedure: string, output: unknown): CallToolResult {
  return {
    content: [{ type: "text", text: summarize(procedure, output) }],
    ...(isRecord(output) ? { structuredContent: output } : {}),
  };
}

function issuesOf(error: ORPCError<string, unknown>): InputIssue[] {
  const issues = isRecord(error.data) ? error.data.issues : undefined;
  return Array.isArray(issues) ? (issues as InputIssue[]) : [];
}

/**
 * A refusal as an MCP tool error: the RPC error's code and message, and for invalid arguments each
 * field's path and problem, so the model can correct its call.
 */
export function toolError(error: ORPCError<string, unknown>): CallToolResult {
  const issues = issuesOf(error);
  const details = issues.map(
    (issue) => `${issue.path.length === 0 ? "(input)" : issue.path.join(".")}: ${issue.message}`,
  );
  const text = [`${error.code}: ${error.message}`, ...details].join("\n");
  return {
    isError: true,
    content: [{ type: "text", text }],
    _meta: { code: error.code, status: error.status, ...(issues.length === 0 ? {} : { issues }) },
  };
}
