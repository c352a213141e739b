import { and, eq } from "drizzle-orm";
import { type AuditActor, recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { memberships, workspaces } from "../db/schema/index.ts";
import { notifyAccessChanges } from "../identity/access-changes.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import type { AccessDependencies } from "./workspace-membership.ts";
import type { WorkspaceOfMember } from "./workspace-of-member.ts";

/** Creates a team workspace with the caller as its owner. A name the caller already has is refused. */
export async function createWorkspace(
  db: Database,
  deps: AccessDependencies,
  input: { name: string; actor: AuditActor & { accountId: string } },
): Promise<ServiceResult<WorkspaceOfMember>> {
  return db.transaction(async (tx) => {
    const [taken] = await tx
      .select({ id: workspaces.id })
      .from(memberships)
      .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
      .where(and(eq(memberships.accountId, input.actor.accountId), eq(workspaces.name, input.name)));
    if (taken !== undefined) return fail.conflict(`You already belong to a workspace named "${input.name}".`);
    const now = deps.clock.now();
    const id = deps.ids("workspace");
    await tx.insert(workspaces).values({ id, name: input.name, createdAt: now });
    await tx
      .insert(memberships)
      .values({ workspaceId: id, accountId: input.actor.accountId, role: "owner", createdAt: now });
    await recordAuditEvent(tx, deps, {
      action: "workspace.created",
      targetType: "workspace",
      targetId: id,
      workspaceId: id,
      actor: input.actor,
      data: { name: input.name },
    });
    await notifyAccessChanges(tx, { accountIds: [input.actor.accountId] });
    return ok({ id, name: input.name, role: "owner" as const, personal: false, createdAt: now });
  });
}
