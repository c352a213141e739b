import type { Scope } from "@weft/contract";
import { recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { registrations } from "../db/schema/index.ts";
import { findOrCreateAccount } from "../identity/accounts.ts";
import { issueCredential } from "../identity/credentials.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { type AuthResult, refuse } from "./auth-error.ts";
import { recordAssertionId } from "./used-assertion-ids.ts";
import type { VerifiedIdJag } from "./verify-id-jag.ts";

export interface AgentProviderRegistration {
  registrationId: string;
  credential: string;
  credentialExpires: Date;
  scopes: Scope[];
}

/**
 * Completes an ID-JAG registration whose assertion has been verified: spends its `jti`, finds or
 * creates the account, and issues a credential tied to the delegation `(iss, sub)` so that a
 * logout token from the provider can revoke it.
 */
export async function registerWithIdJag(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator },
  assertion: VerifiedIdJag,
): Promise<AuthResult<AgentProviderRegistration>> {
  return db.transaction(async (tx): Promise<AuthResult<AgentProviderRegistration>> => {
    if (!(await recordAssertionId(tx, deps.clock, assertion))) {
      return refuse("replay_detected", "This ID-JAG has already been used; mint a new one.");
    }
    const account = await findOrCreateAccount(tx, deps, assertion.email);
    const registrationId = deps.ids("registration");
    const issued = await issueCredential(tx, deps, {
      accountId: account.accountId,
      scopes: assertion.scopes,
      registrationId,
      issuer: assertion.issuer,
      subject: assertion.subject,
    });
    await tx.insert(registrations).values({
      id: registrationId,
      type: "agent-provider",
      status: "issued",
      email: account.email,
      scopes: assertion.scopes,
      agentDescription: `client ${assertion.clientId} of ${assertion.issuer}`,
      clientId: assertion.clientId,
      accountId: account.accountId,
      credentialId: issued.credentialId,
      issuer: assertion.issuer,
      subject: assertion.subject,
      createdAt: deps.clock.now(),
    });
    await recordAuditEvent(tx, deps, {
      action: "registration.created",
      targetType: "registration",
      targetId: registrationId,
      workspaceId: account.personalWorkspaceId,
      actor: {
        accountId: account.accountId,
        email: account.email,
        credentialId: issued.credentialId,
        agentId: registrationId,
        agent: { clientId: assertion.clientId, issuer: assertion.issuer, userAgent: null },
      },
      data: {
        type: "agent-provider",
        issuer: assertion.issuer,
        clientId: assertion.clientId,
        scopes: assertion.scopes,
      },
    });
    return {
      ok: true,
      value: {
        registrationId,
        credential: issued.credential,
        credentialExpires: issued.expiresAt,
        scopes: issued.scopes,
      },
    };
  });
}
