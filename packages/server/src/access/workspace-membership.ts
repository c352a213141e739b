import { and, eq, type SQL } from "drizzle-orm";
import type { Transaction } from "../db/database.ts";
import { memberships, type WorkspaceRole, workspaces } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";

export interface AccessDependencies {
  clock: Clock;
  ids: IdGenerator;
}

/**
 * Locks a workspace's row: every transaction that changes its members (or invitations) takes this
 * lock first, so they run one after another per workspace, see each other's outcome (the last-owner
 * rule depends on it) and cannot deadlock on membership rows. False when there is no such workspace.
 */
export async function lockWorkspace(tx: Transaction, workspaceId: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: workspaces.id })
    .from(workspaces)
    .where(eq(workspaces.id, workspaceId))
    .for("update");
  return row !== undefined;
}

/** The membership row of an account in a workspace. */
export function membershipOf(workspaceId: string, accountId: string): SQL | undefined {
  return and(eq(memberships.workspaceId, workspaceId), eq(memberships.accountId, accountId));
}

/** The role of an account in a workspace; under `lockWorkspace`, it stays so until commit. */
export async function roleOf(
  tx: Transaction,
  workspaceId: string,
  accountId: string,
): Promise<WorkspaceRole | undefined> {
  const [row] = await tx
    .select({ role: memberships.role })
    .from(memberships)
    .where(membershipOf(workspaceId, accountId));
  return row?.role;
}

/**
 * Locks the workspace (`lockWorkspace`) for a change an actor makes to it, and reads the actor's
 * role: not_found for a workspace that does not exist or that the actor is not in.
 */
export async function lockActorRole(
  tx: Transaction,
  workspaceId: string,
  actor: { accountId: string },
): Promise<ServiceResult<WorkspaceRole>> {
  if (!(await lockWorkspace(tx, workspaceId))) return fail.notFound("workspace");
  const actorRole = await roleOf(tx, workspaceId, actor.accountId);
  if (actorRole === undefined) return fail.notFound("workspace");
  return ok(actorRole);
}

/** `lockActorRole` for a change to a member, with the member's role: not_found for one not in the workspace. */
export async function lockRolesOf(
  tx: Transaction,
  change: { workspaceId: string; accountId: string; actor: { accountId: string } },
): Promise<ServiceResult<{ actorRole: WorkspaceRole; targetRole: WorkspaceRole }>> {
  const actorRole = await lockActorRole(tx, change.workspaceId, change.actor);
  if (!actorRole.ok) return actorRole;
  const targetRole = await roleOf(tx, change.workspaceId, change.accountId);
  if (targetRole === undefined) return fail.notFound("member");
  return ok({ actorRole: actorRole.value, targetRole });
}

/** Whether `accountId` is the workspace's only owner (under `lockWorkspace`). */
export async function isLastOwner(tx: Transaction, workspaceId: string, accountId: string): Promise<boolean> {
  const owners = await tx
    .select({ accountId: memberships.accountId })
    .from(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.role, "owner")));
  return owners.length === 1 && owners[0]?.accountId === accountId;
}
