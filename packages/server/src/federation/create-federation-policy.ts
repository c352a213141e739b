import type { Scope } from "@weft/contract";
import { and, eq } from "drizzle-orm";
import { manageRefusal, managesMembers } from "../access/role-rules.ts";
import { type AccessDependencies, roleOf } from "../access/workspace-membership.ts";
import { type AuditActor, recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { federationPolicies, projects } from "../db/schema/index.ts";
import type { GuardedFetch } from "../shared/guarded-fetch.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { hasLiteralPart } from "./claim-pattern.ts";
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

/** How long the issuer's host name may take to resolve for the check at creation. */
const issuerCheckDeadlineMs = 5000;

/** Patterns of wildcards alone, by field: each would match every token of the issuer. */
function unpinnedPatterns(subject: string | undefined, claims: Record<string, string> | null) {
  const patterns: [string, string][] = [
    ...(subject === undefined ? [] : [["subject", subject] as [string, string]]),
    ...Object.entries(claims ?? {}).map(([name, pattern]): [string, string] => [`claims.${name}`, pattern]),
  ];
  return patterns
    .filter(([, pattern]) => !hasLiteralPart(pattern))
    .map(([path]) => ({
      path,
      message: "A pattern of * alone matches every token of the issuer: give a literal part that pins the owner.",
    }));
}

/**
 * Trusts an issuer's matching tokens for one project of the workspace; owners and admins only. An
 * issuer on an address the platform does not reach on a tenant's behalf is refused at once (its
 * documents are fetched through `outbound`, which checks again on each fetch).
 */
export async function createFederationPolicy(
  db: Database,
  deps: AccessDependencies & { outbound: Pick<GuardedFetch, "destinationRefusal"> },
  input: NewFederationPolicy & { actor: AuditActor & { accountId: string } },
): Promise<ServiceResult<FederationPolicyRecord>> {
  const claims = input.claims === undefined || Object.keys(input.claims).length === 0 ? null : input.claims;
  if (input.subject === undefined && claims === null) {
    return fail.invalid("Name a subject or claims: a policy without either would trust every token of the issuer.", [
      { path: "subject", message: "Required when no claims are named." },
    ]);
  }
  const unpinned = unpinnedPatterns(input.subject, claims);
  if (unpinned.length > 0) {
    return fail.invalid("Each pattern of a federation policy needs a literal part", unpinned);
  }
  const refusal = await deps.outbound.destinationRefusal(new URL(input.issuer), issuerCheckDeadlineMs);
  if (refusal !== undefined) {
    return fail.invalid("The issuer is out of reach", [
      {
        path: "issuer",
        message: `${refusal} (the operator may exempt one with WEFT_SANDBOX_EGRESS_ALLOW)`,
      },
    ]);
  }
  return db.transaction(async (tx) => {
    const role = await roleOf(tx, input.workspaceId, input.actor.accountId);
    if (role === undefined) return fail.notFound("workspace");
    if (!managesMembers(role)) return fail.forbidden(manageRefusal(role, "manage federation policies"));
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
