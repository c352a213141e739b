import type { AuditActor, ProjectChange } from "../audit/record-audit-event.ts";
import type { WorkspaceRole } from "../db/schema/index.ts";
import { findProject, type ProjectRecord } from "../projects/project-record.ts";
import { notFoundMessage } from "../shared/service-result.ts";
import type { AuthenticatedContext, Principal } from "./context.ts";
import { forbidden, notFound } from "./rpc-errors.ts";

/** `read` sees a workspace's things; `write` changes them, which a viewer may not. */
export type WorkspaceAccess = "read" | "write";

const writerRoles: ReadonlySet<WorkspaceRole> = new Set(["owner", "admin", "member"]);

/** Namespaces that act on a workspace's people and trust rather than on a project. */
const workspaceManagementNamespaces: ReadonlySet<string> = new Set(["access", "agents", "integrations", "billing"]);

const projectScopedRefusal =
  "This credential is scoped to one project: it cannot manage the workspace, its members, agents, policies, integrations or billing, nor see the workspace as a whole.";

/**
 * Refuses a project-scoped credential every procedure outside its project's reach (FORBIDDEN), before
 * the procedure runs: with the checks below, this is where such a credential is confined.
 */
export function requireCredentialReach(principal: Principal, path: readonly string[]): void {
  if (!credentialReaches(principal, path)) throw forbidden(projectScopedRefusal);
}

/** Whether a credential may call the procedure at `path` at all (see `requireCredentialReach`). */
export function credentialReaches(principal: Principal, path: readonly string[]): boolean {
  return principal.projectId === undefined || !workspaceManagementNamespaces.has(path[0] ?? "");
}

/** Whether the caller may change anything anywhere: a writer role in at least one workspace. */
export function holdsWriterRoleSomewhere(principal: Principal): boolean {
  return [...principal.workspaces.values()].some((role) => writerRoles.has(role));
}

/** Refuses a project-scoped credential a view of the whole workspace (FORBIDDEN), as for management. */
export function requireWholeWorkspaceReach(principal: Principal): void {
  if (principal.projectId !== undefined) throw forbidden(projectScopedRefusal);
}

/**
 * Refuses unless the caller belongs to the workspace (NOT_FOUND: a workspace one is not in is
 * never visible) and, for `write`, holds a role that may change it (FORBIDDEN).
 */
export function requireWorkspaceAccess(principal: Principal, workspaceId: string, access: WorkspaceAccess): void {
  const role = principal.workspaces.get(workspaceId);
  if (role === undefined) throw notFound(notFoundMessage("workspace"));
  if (access === "write" && principal.projectId !== undefined) throw forbidden(projectScopedRefusal);
  if (access === "write") requireWriterRole(role, workspaceId);
}

function requireWriterRole(role: WorkspaceRole, workspaceId: string): void {
  if (!writerRoles.has(role)) throw forbidden(`Your ${role} role in workspace ${workspaceId} cannot change it.`);
}

/**
 * A change to a workspace as the access services take it: the procedure's input and who asks, once
 * the caller is known to belong to the workspace (NOT_FOUND otherwise). The services check the role
 * the change needs, in the transaction that makes it.
 */
export function requireWorkspaceChange<TInput extends { workspaceId: string }>(
  context: AuthenticatedContext,
  input: TInput,
): TInput & { actor: ReturnType<typeof actorOf> } {
  requireWorkspaceAccess(context.principal, input.workspaceId, "read");
  return { ...input, actor: actorOf(context) };
}

/**
 * Loads a project the caller may see, or refuses: a project of a workspace the caller is not in, or
 * any but its own for a project-scoped credential, is NOT_FOUND, exactly like one that does not exist. Every procedure taking a `projectId` goes
 * through this before touching anything of the project.
 */
export async function requireProjectAccess(
  context: AuthenticatedContext,
  projectId: string,
  options: { access: WorkspaceAccess },
): Promise<ProjectRecord> {
  const project = await findProject(context.platform.database.db, projectId);
  const { principal } = context;
  const role = project === undefined ? undefined : principal.workspaces.get(project.workspaceId);
  if (project === undefined || role === undefined || (principal.projectId ?? project.id) !== project.id) {
    throw notFound(notFoundMessage("project"));
  }
  if (options.access === "write") requireWriterRole(role, project.workspaceId);
  return project;
}

/**
 * Loads a project the caller may change, as `requireProjectAccess` with `write` access, and names the
 * change as the services that audit a project's changes take it: the project, its workspace, the actor.
 */
export async function requireProjectChange(context: AuthenticatedContext, projectId: string): Promise<ProjectChange> {
  const project = await requireProjectAccess(context, projectId, { access: "write" });
  return { projectId: project.id, workspaceId: project.workspaceId, actor: actorOf(context) };
}

/**
 * Who is acting, as the audit trail records it: services hand this object on to `recordAuditEvent`
 * as it is, so every event of an RPC call names the agent as well as the person.
 */
export function actorOf(context: AuthenticatedContext): AuditActor & { accountId: string; credentialId: string } {
  const { accountId, email, credentialId, agentId, agent } = context.principal;
  return { accountId, email, credentialId, agentId, agent, via: context.via };
}
