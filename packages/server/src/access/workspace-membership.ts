import { and, eq } from "drizzle-orm";
import type { Transaction } from "../db/database.ts";
import { memberships, type WorkspaceRole, workspaces } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";

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

/** The role of an account in a workspace; under `lockWorkspace`, it stays so until commit. */
export async function roleOf(
  tx: Transaction,
  workspaceId: string,
  accountId: string,
): Promise<WorkspaceRole | undefined> {
  const [row] = await tx
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.accountId, accountId)));
  return row?.role;
}

/** Whether `accountId` is the workspace's only owner (under `lockWorkspace`). */
export async function isLastOwner(tx: Transaction, workspaceId: string, accountId: string): Promise<boolean> {
  const owners = await tx
    .select({ accountId: memberships.accountId })
    .from(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.role, "owner")));
  return owners.length === 1 && owners[0]?.accountId === accountId;
}
