import { and, eq, inArray } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { managesMembers, outranks } from "../access/role-rules.ts";
import type { Database, Transaction } from "../db/database.ts";
import { memberships, type WorkspaceRole } from "../db/schema/index.ts";

const theirs = alias(memberships, "their_memberships");

/**
 * The workspace through which `actorAccountId` may act on `targetAccountId`'s agents: one where
 * the actor is an owner or admin, the target a member, and the target's role not above the
 * actor's. Undefined when there is none. One's own agents need no such workspace.
 */
export async function managingWorkspace(
  db: Database | Transaction,
  actorAccountId: string,
  targetAccountId: string,
): Promise<string | undefined> {
  const managerRoles: WorkspaceRole[] = ["owner", "admin"];
  const rows = await db
    .select({ workspaceId: memberships.workspaceId, actorRole: memberships.role, targetRole: theirs.role })
    .from(memberships)
    .innerJoin(theirs, and(eq(theirs.workspaceId, memberships.workspaceId), eq(theirs.accountId, targetAccountId)))
    .where(and(eq(memberships.accountId, actorAccountId), inArray(memberships.role, managerRoles)));
  return rows.find((row) => managesMembers(row.actorRole) && !outranks(row.targetRole, row.actorRole))?.workspaceId;
}
