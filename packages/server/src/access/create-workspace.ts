import { and, eq } from "drizzle-orm";
import { type AuditActor, recordAuditEvent } from "../audit/record-audit-event.ts";
import type { PlanCatalogue } from "../billing/plans.ts";
import { workspaceQuotaExceeded } from "../billing/workspace-quota.ts";
import type { Database } from "../db/database.ts";
import { memberships, workspaces } from "../db/schema/index.ts";
import { notifyAccessChanges } from "../identity/access-changes.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import type { AccessDependencies } from "./workspace-membership.ts";
import type { WorkspaceOfMember } from "./workspace-of-member.ts";

/**
 * Creates a team workspace with the caller as its owner, paid for by the caller. A name the caller
 * already has is refused, and so is a workspace past the number the caller's plan allows one
 * account to pay for (quota_exceeded): a worker's share holds per account, which many workspaces
 * would otherwise multiply.
 */
export async function createWorkspace(
  db: Database,
  deps: AccessDependencies & { config: { billing: PlanCatalogue } },
  input: { name: string; actor: AuditActor & { accountId: string } },
): Promise<ServiceResult<WorkspaceOfMember>> {
  return db.transaction(async (tx) => {
    // First, since it locks the caller's account: the name check below then sees concurrent creations too.
    const full = await workspaceQuotaExceeded(tx, deps.config.billing, input.actor.accountId);
    if (full !== undefined) return fail.quotaExceeded(full);
    const [taken] = await tx
      .select({ id: workspaces.id })
      .from(memberships)
      .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
      .where(and(eq(memberships.accountId, input.actor.accountId), eq(workspaces.name, input.name)));
    if (taken !== undefined) return fail.conflict(`You already belong to a workspace named "${input.name}".`);
    const now = deps.clock.now();
    const id = deps.ids("workspace");
    await tx
      .insert(workspaces)
      .values({ id, name: input.name, billingAccountId: input.actor.accountId, createdAt: now });
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
