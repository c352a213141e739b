import type { Scope } from "@weft/contract";
import { and, eq } from "drizzle-orm";
import { recordAuditEvent } from "../audit/record-audit-event.ts";
import { type AuthResult, refuse } from "../auth/auth-error.ts";
import { recordAssertionId } from "../auth/used-assertion-ids.ts";
import type { Database } from "../db/database.ts";
import { accounts, federationPolicies, memberships, registrations } from "../db/schema/index.ts";
import { issueCredential } from "../identity/credentials.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import type { MatchedSubjectToken } from "./verify-subject-token.ts";

/** A credential is never trusted longer than an hour past the token it was exchanged for. */
export const beyondTokenExpiryMs = 60 * 60 * 1000;

export interface FederatedCredential {
  registrationId: string;
  credential: string;
  expiresAt: Date;
  scopes: Scope[];
}

/**
 * Issues the project-scoped credential of a verified subject token: a `federated` agent of the
 * policy's creator, confined to the policy's project, living the policy's `maxTtlSeconds` but never
 * past the token's `exp` + 1 h. Spends the token's `jti`, and checks again, in the same transaction,
 * that the policy still stands and its creator still belongs to the workspace.
 */
export async function issueFederatedCredential(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator },
  token: MatchedSubjectToken,
): Promise<AuthResult<FederatedCredential>> {
  return db.transaction(async (tx): Promise<AuthResult<FederatedCredential>> => {
    const [policy] = await tx
      .select({ id: federationPolicies.id, email: accounts.email })
      .from(federationPolicies)
      .innerJoin(accounts, eq(accounts.id, federationPolicies.createdByAccountId))
      .innerJoin(
        memberships,
        and(
          eq(memberships.workspaceId, federationPolicies.workspaceId),
          eq(memberships.accountId, federationPolicies.createdByAccountId),
        ),
      )
      .where(eq(federationPolicies.id, token.policy.id))
      .for("share", { of: federationPolicies });
    if (policy === undefined) {
      return refuse("invalid_request", "The federation policy this token matched is gone, or its creator has left.");
    }
    if (!(await recordAssertionId(tx, deps.clock, token))) {
      return refuse("invalid_request", "This subject_token has already been used; mint a new one.");
    }
    const now = deps.clock.now().getTime();
    const expiresAt = new Date(
      Math.min(now + token.policy.maxTtlSeconds * 1000, token.expiresAt.getTime() + beyondTokenExpiryMs),
    );
    const { policy: matched } = token;
    const registrationId = deps.ids("registration");
    const issued = await issueCredential(tx, deps, {
      accountId: matched.createdByAccountId,
      scopes: token.scopes,
      registrationId,
      expiresAt,
    });
    await tx.insert(registrations).values({
      id: registrationId,
      type: "federated",
      status: "issued",
      email: policy.email,
      scopes: token.scopes,
      agentDescription: `${token.subject} of ${token.issuer}`,
      accountId: matched.createdByAccountId,
      credentialId: issued.credentialId,
      issuer: token.issuer,
      subject: token.subject,
      policyId: matched.id,
      projectId: matched.projectId,
      createdAt: deps.clock.now(),
    });
    await recordAuditEvent(tx, deps, {
      action: "registration.created",
      targetType: "registration",
      targetId: registrationId,
      workspaceId: matched.workspaceId,
      actor: {
        accountId: matched.createdByAccountId,
        email: policy.email,
        credentialId: issued.credentialId,
        agentId: registrationId,
        agent: { clientId: null, issuer: token.issuer, userAgent: null },
      },
      data: {
        type: "federated",
        policyId: matched.id,
        projectId: matched.projectId,
        issuer: token.issuer,
        subject: token.subject,
        scopes: token.scopes,
        expiresAt: expiresAt.toISOString(),
      },
    });
    return {
      ok: true,
      value: { registrationId, credential: issued.credential, expiresAt: issued.expiresAt, scopes: issued.scopes },
    };
  });
}
