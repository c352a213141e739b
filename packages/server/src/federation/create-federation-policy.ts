import { and, eq } from "drizzle-orm";
import { manageRefusal, managesMembers } from "../access/role-rules.ts";
import { type AccessDependencies, roleOf } from "../access/workspace-membership.ts";
import { type AuditActor, recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { federationPolicies, projects } from "../db/schema/index.ts";
import type { Scope } from "../identity/scopes.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { type FederationPolicyRecord, toFederationPolicyRecord } from "./federation-policy-record.ts";

export interface NewFederationPolicy {
  workspaceId: string;
  projectId: string;
  issuer: string;
  audience: string;
  subject?: string | undefined;
  claims?: Record<string, string> | undefined;
  scopes: Scope[];
  maxTtlSeconds: number;
}

/** Trusts an issuer's matching tokens for one project of the workspace; owners and admins only. */
export async function createFederationPolicy(
  db: Database,
  deps: AccessDependencies,
  input: NewFederationPolicy & { actor: AuditActor & { accountId: string } },
): Promise<ServiceResult<FederationPolicyRecord>> {
  const claims = input.claims === undefined || Object.keys(input.claims).length === 0 ? null : input.claims;
  if (input.subject === undefined && claims === null) {
    return fail.invalid("Name a subject or claims: a policy without either would trust every token of the issuer.", [
      { path: "subject", message: "Required when no claims are named." },
    ]);
  }
  return db.transaction(async (tx) => {
    const role = await roleOf(tx, input.workspaceId, input.actor.accountId);
    if (role === undefined) return fail.notFound("workspace");
    if (!managesMembers(role)) return fail.forbidden(manageRefusal(role));
    const [project] = await tx
      .select({ id: projects.id })
      .from(projects)
      .where(and(eq(projects.id, input.projectId), eq(projects.workspaceId, input.workspaceId)));
    if (project === undefined) return fail.notFound("project");
    const [row] = await tx
      .insert(federationPolicies)
      .values({
        id: deps.ids("federationPolicy"),
        workspaceId: input.workspaceId,
        projectId: input.projectId,
        issuer: input.issuer,
        audience: input.audience,
        subject: input.subject ?? null,
        claims,
        scopes: [...new Set(input.scopes)],
        maxTtlSeconds: input.maxTtlSeconds,
        createdByAccountId: input.actor.accountId,
        createdAt: deps.clock.now(),
      })
      .returning();
    if (row === undefined) throw new Error("the federation policy insert returned no row");
    await recordAuditEvent(tx, deps, {
      action: "federation_policy.created",
      targetType: "federation_policy",
      targetId: row.id,
      workspaceId: row.workspaceId,
      actor: input.actor,
      data: {
        projectId: row.projectId,
        issuer: row.issuer,
        audience: row.audience,
        subject: row.subject,
        claims: row.claims,
        scopes: row.scopes,
        maxTtlSeconds: row.maxTtlSeconds,
      },
    });
    return ok(toFederationPolicyRecord(row));
  });
}
