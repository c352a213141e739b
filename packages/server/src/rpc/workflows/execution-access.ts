import { ORPCError } from "@orpc/server";
import { eq } from "drizzle-orm";
import type { AuditedChange } from "../../audit/record-audit-event.ts";
import { executions } from "../../db/schema/index.ts";
import { notFoundMessage } from "../../shared/service-result.ts";
import type { AuthenticatedContext } from "../context.ts";
import { actorOf, requireProjectAccess, type WorkspaceAccess } from "../project-access.ts";
import { notFound } from "../rpc-errors.ts";

/**
 * The project of an execution the caller may see (and, for `write`, change); NOT_FOUND otherwise,
 * also for another tenant's execution.
 */
export async function requireExecutionAccess(
  context: AuthenticatedContext,
  executionId: string,
  options: { access: WorkspaceAccess },
): Promise<{ projectId: string; workspaceId: string }> {
  const [row] = await context.platform.database.db
    .select({ projectId: executions.projectId })
    .from(executions)
    .where(eq(executions.id, executionId));
  if (row === undefined) throw notFound(notFoundMessage("execution"));
  try {
    const project = await requireProjectAccess(context, row.projectId, options);
    return { projectId: project.id, workspaceId: project.workspaceId };
  } catch (error) {
    // Never name the project of an execution the caller cannot see.
    if (error instanceof ORPCError && error.code === "NOT_FOUND") throw notFound(notFoundMessage("execution"));
    throw error;
  }
}

/**
 * An execution the caller may change (as `requireExecutionAccess` with `write` access), named as the
 * services that change one and audit it take it: the execution, its project, the actor and workspace.
 */
export async function requireExecutionChange(
  context: AuthenticatedContext,
  executionId: string,
): Promise<{ executionId: string; projectId: string; audit: AuditedChange }> {
  const { projectId, workspaceId } = await requireExecutionAccess(context, executionId, { access: "write" });
  return { executionId, projectId, audit: { actor: actorOf(context), workspaceId } };
}
