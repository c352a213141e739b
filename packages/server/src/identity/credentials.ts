import type { Scope } from "@weft/contract";
import { and, eq, gt, inArray, isNull, type SQL } from "drizzle-orm";
import { type AuditActor, recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database, Transaction } from "../db/database.ts";
import { credentials, workspaces } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { generateToken, hashSecret } from "../shared/secrets.ts";
import { notifyAccessChanges } from "./access-changes.ts";

/** Credentials live 30 days from issue. */
export const credentialLifetimeMs = 30 * 24 * 60 * 60 * 1000;

/** Recognisable prefix of every bearer credential, so leaked ones can be found by secret scanners. */
export const credentialPrefix = "weft";

export interface IssuedCredential {
  credentialId: string;
  /** The bearer secret: returned once, never stored. */
  credential: string;
  expiresAt: Date;
  scopes: Scope[];
}

export interface IssueCredentialInput {
  accountId: string;
  scopes: Scope[];
  registrationId?: string | undefined;
  /** The ID-JAG delegation (iss, sub) it was issued for, if any. */
  issuer?: string | undefined;
  subject?: string | undefined;
  /** Sooner than the usual 30 days (a federated credential lives minutes). */
  expiresAt?: Date | undefined;
}

export async function issueCredential(
  tx: Transaction,
  deps: { clock: Clock; ids: IdGenerator },
  input: IssueCredentialInput,
): Promise<IssuedCredential> {
  const credentialId = deps.ids("credential");
  const credential = generateToken(credentialPrefix);
  const now = deps.clock.now();
  const expiresAt = input.expiresAt ?? new Date(now.getTime() + credentialLifetimeMs);
  await tx.insert(credentials).values({
    id: credentialId,
    secretHash: hashSecret(credential),
    accountId: input.accountId,
    registrationId: input.registrationId ?? null,
    scopes: input.scopes,
    issuer: input.issuer ?? null,
    subject: input.subject ?? null,
    createdAt: now,
    expiresAt,
  });
  await recordAuditEvent(tx, deps, {
    action: "credential.issued",
    targetType: "credential",
    targetId: credentialId,
    actor: { accountId: input.accountId },
    data: { scopes: input.scopes, registrationId: input.registrationId },
  });
  return { credentialId, credential, expiresAt, scopes: input.scopes };
}

export interface ActiveCredential {
  credentialId: string;
  accountId: string;
  scopes: Scope[];
  expiresAt: Date;
}

/** The credential a bearer secret names, if it exists, is not revoked and has not expired. */
export async function findActiveCredential(
  db: Database,
  clock: Clock,
  presentedSecret: string,
): Promise<ActiveCredential | undefined> {
  if (!presentedSecret.startsWith(`${credentialPrefix}_`)) return undefined;
  const [row] = await db
    .select({
      credentialId: credentials.id,
      accountId: credentials.accountId,
      scopes: credentials.scopes,
      expiresAt: credentials.expiresAt,
    })
    .from(credentials)
    .where(
      and(
        eq(credentials.secretHash, hashSecret(presentedSecret)),
        isNull(credentials.revokedAt),
        gt(credentials.expiresAt, clock.now()),
      ),
    );
  return row === undefined ? undefined : { ...row, scopes: row.scopes as Scope[] };
}

export interface RevocationDependencies {
  clock: Clock;
  ids: IdGenerator;
}

/**
 * Revokes the active credentials matching `condition`, with an audit event each; every process
 * hears of it on commit (`notifyAccessChanges`), this one too once the caller publishes the ids.
 */
export async function revokeWhere(
  tx: Transaction,
  deps: RevocationDependencies,
  condition: SQL,
  reason: string,
  actor?: AuditActor,
): Promise<string[]> {
  const revoked = await tx
    .update(credentials)
    .set({ revokedAt: deps.clock.now() })
    .where(and(condition, isNull(credentials.revokedAt)))
    .returning({ id: credentials.id, accountId: credentials.accountId });
  const personal =
    revoked.length === 0
      ? []
      : await tx
          .select({ accountId: workspaces.personalAccountId, workspaceId: workspaces.id })
          .from(workspaces)
          .where(inArray(workspaces.personalAccountId, [...new Set(revoked.map((row) => row.accountId))]));
  const personalWorkspaceOf = new Map(personal.map((row) => [row.accountId, row.workspaceId]));
  for (const row of revoked) {
    await recordAuditEvent(tx, deps, {
      action: "credential.revoked",
      targetType: "credential",
      targetId: row.id,
      // The holder's own log shows it, whoever revoked it.
      workspaceId: personalWorkspaceOf.get(row.accountId),
      actor: actor ?? { accountId: row.accountId },
      data: { reason },
    });
  }
  const ids = revoked.map((row) => row.id);
  await notifyAccessChanges(tx, { credentialIds: ids });
  return ids;
}

/**
 * Revokes the credential a bearer secret names. Returns the ids revoked (none for an unknown or
 * already revoked secret); callers announce them on `CredentialRevocations` after commit.
 */
export function revokeCredentialBySecret(
  tx: Transaction,
  deps: RevocationDependencies,
  presentedSecret: string,
): Promise<string[]> {
  return revokeWhere(tx, deps, eq(credentials.secretHash, hashSecret(presentedSecret)), "revoked by its holder");
}

/** Revokes every credential issued for an ID-JAG delegation `(iss, sub)` (logout-token revocation). */
export function revokeCredentialsOfDelegation(
  tx: Transaction,
  deps: RevocationDependencies,
  delegation: { issuer: string; subject: string },
): Promise<string[]> {
  return revokeWhere(
    tx,
    deps,
    and(eq(credentials.issuer, delegation.issuer), eq(credentials.subject, delegation.subject)) as SQL,
    "identity provider logout",
  );
}
