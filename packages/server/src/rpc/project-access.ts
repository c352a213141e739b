import type { AuditActor } from "../audit/record-audit-event.ts";
import type { WorkspaceRole } from "../db/schema/index.ts";
import { findProject, type ProjectRecord } from "../projects/project-record.ts";
import { notFoundMessage } from "../shared/service-result.ts";
import type { AuthenticatedContext, Principal } from "./context.ts";
import { forbidden, notFound } from "./rpc-errors.ts";

/** `read` sees a workspace's things; `write` changes them, which a viewer may not. */
export type WorkspaceAccess = "read" | "write";

const writerRoles: ReadonlySet<WorkspaceRole> = new Set(["owner", "admin", "member"]);

/**
 * Refuses unless the caller belongs to the workspace (NOT_FOUND: a workspace one is not in is
 * never visible) and, for `write`, holds a role that may change it (FORBIDDEN).
 */
export function requireWorkspaceAccess(principal: Principal, workspaceId: string, access: WorkspaceAccess): void {
  const role = principal.workspaces.get(workspaceId);
  if (role === undefined) throw notFound(notFoundMessage("workspace"));
  if (access === "write" && !writerRoles.has(role)) {
    throw forbidden(`Your ${role} role in workspace ${workspaceId} cannot change it.`);
  }
}

/**
 * Loads a project the caller may see, or refuses: a project of a workspace the caller is not in is
 * NOT_FOUND, exactly like a project that does not exist. Every procedure taking a `projectId` goes
 * through this before touching anything of the project.
 */
export async function requireProjectAccess(
  context: AuthenticatedContext,
  projectId: string,
  options: { access: WorkspaceAccess },
): Promise<ProjectRecord> {
  const project = await findProject(context.platform.database.db, projectId);
  if (project === undefined || !context.principal.workspaces.has(project.workspaceId)) {
    throw notFound(notFoundMessage("project"));
  }
  requireWorkspaceAccess(context.principal, project.workspaceId, options.access);
  return project;
}

/**
 * Who is acting, as the audit trail records it: services hand this object on to `recordAuditEvent`
 * as it is, so every event of an RPC call names the agent as well as the person.
 */
export function actorOf(context: AuthenticatedContext): AuditActor & { accountId: string; credentialId: string } {
  const { accountId, email, credentialId, agentId, agent } = context.principal;
  return { accountId, email, credentialId, agentId, agent };
}
