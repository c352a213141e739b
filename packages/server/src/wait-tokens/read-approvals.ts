import { and, asc, eq, gt, isNull } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { executions, projects, waitTokens } from "../db/schema/index.ts";
import type { ExecutionToken } from "../workflows/read-executions.ts";

/** A token that waits for an answer, with the execution and project it belongs to. */
export interface WaitingApproval extends ExecutionToken {
  executionId: string;
  projectId: string;
  projectName: string;
  workflow: string;
}

/**
 * The pending, unexpired wait tokens of a workspace's projects, oldest first, at most `limit`;
 * `more` when others wait beyond them. Tokens that wait on an event are no one's to answer and are
 * left out.
 */
export async function readApprovals(
  db: Database,
  request: { workspaceId: string; now: Date; limit: number },
): Promise<{ approvals: WaitingApproval[]; more: boolean }> {
  const rows = await db
    .select({
      executionId: waitTokens.executionId,
      projectId: waitTokens.projectId,
      projectName: projects.name,
      workflow: executions.workflow,
      name: waitTokens.name,
      status: waitTokens.status,
      createdAt: waitTokens.createdAt,
      expiresAt: waitTokens.expiresAt,
      finishedAt: waitTokens.finishedAt,
      title: waitTokens.title,
      description: waitTokens.description,
      fields: waitTokens.fields,
      approvers: waitTokens.approvers,
    })
    .from(waitTokens)
    .innerJoin(projects, eq(projects.id, waitTokens.projectId))
    .innerJoin(executions, eq(executions.id, waitTokens.executionId))
    .where(
      and(
        eq(projects.workspaceId, request.workspaceId),
        eq(waitTokens.status, "pending"),
        gt(waitTokens.expiresAt, request.now),
        isNull(waitTokens.eventName),
        isNull(waitTokens.childExecutionId),
      ),
    )
    .orderBy(asc(waitTokens.createdAt), asc(waitTokens.executionId), asc(waitTokens.name))
    .limit(request.limit + 1);
  return {
    approvals: rows.slice(0, request.limit).map((row) => ({ ...row, event: null, completedBy: null })),
    more: rows.length > request.limit,
  };
}
