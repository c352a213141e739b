import { and, eq } from "drizzle-orm";
import type { Transaction } from "../db/database.ts";
import { memberships, type WorkspaceRole } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";

export interface AccessDependencies {
  clock: Clock;
  ids: IdGenerator;
}

/**
 * The role of an account in a workspace, read under a row lock so that two concurrent changes of
 * one workspace's members see each other (the last-owner rule depends on it).
 */
export async function lockedRoleOf(
  tx: Transaction,
  workspaceId: string,
  accountId: string,
): Promise<WorkspaceRole | undefined> {
  const [row] = await tx
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.accountId, accountId)))
    .for("update");
  return row?.role;
}

/**
 * Whether `accountId` is the workspace's only owner. The owners' rows are locked, so a concurrent
 * demotion or departure of the other owner waits and then sees this one's outcome.
 */
export async function isLastOwner(tx: Transaction, workspaceId: string, accountId: string): Promise<boolean> {
  const owners = await tx
    .select({ accountId: memberships.accountId })
    .from(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.role, "owner")))
    .for("update");
  return owners.length === 1 && owners[0]?.accountId === accountId;
}
