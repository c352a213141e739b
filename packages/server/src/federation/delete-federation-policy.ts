import { eq, inArray } from "drizzle-orm";
import { manageRefusal, managesMembers } from "../access/role-rules.ts";
import { type AccessDependencies, roleOf } from "../access/workspace-membership.ts";
import { type AuditActor, recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { credentials, federationPolicies, registrations } from "../db/schema/index.ts";
import { revokeWhere } from "../identity/credentials.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { type FederationPolicyRecord, toFederationPolicyRecord } from "./federation-policy-record.ts";

/**
 * Deletes a policy and revokes every credential it gave: a policy taken back must not leave its
 * tokens' credentials working until they expire. Returns the revoked ids for the caller to announce.
 */
export async function deleteFederationPolicy(
  db: Database,
  deps: AccessDependencies,
  input: { policyId: string; actor: AuditActor & { accountId: string } },
): Promise<ServiceResult<{ policy: FederationPolicyRecord; revokedCredentialIds: string[] }>> {
  return db.transaction(async (tx) => {
    const [policy] = await tx.select().from(federationPolicies).where(eq(federationPolicies.id, input.policyId));
    if (policy === undefined) return fail.notFound("federation policy");
    const role = await roleOf(tx, policy.workspaceId, input.actor.accountId);
    if (role === undefined) return fail.notFound("federation policy");
    if (!managesMembers(role)) return fail.forbidden(manageRefusal(role, "manage federation policies"));
    await tx.delete(federationPolicies).where(eq(federationPolicies.id, policy.id));
    const issuedUnderIt = tx
      .select({ id: registrations.credentialId })
      .from(registrations)
      .where(eq(registrations.policyId, policy.id));
    const revokedCredentialIds = await revokeWhere(
      tx,
      deps,
      inArray(credentials.id, issuedUnderIt),
      "federation policy deleted",
      input.actor,
    );
    await recordAuditEvent(tx, deps, {
      action: "federation_policy.deleted",
      targetType: "federation_policy",
      targetId: policy.id,
      workspaceId: policy.workspaceId,
      actor: input.actor,
      data: { projectId: policy.projectId, issuer: policy.issuer, revokedCredentials: revokedCredentialIds.length },
    });
    return ok({ policy: toFederationPolicyRecord(policy), revokedCredentialIds });
  });
}
