import { sql } from "drizzle-orm";
import type { DatabaseHandle, Transaction } from "../db/database.ts";
import { type Announcements, createIdAnnouncements } from "../shared/announcements.ts";
import type { CredentialRevocations } from "./credential-revocations.ts";

/**
 * The NOTIFY channel on which a transaction that revokes credentials or changes memberships tells
 * every process, on commit, whose cached principals are stale: `credential:<id>` or `account:<id>`.
 */
export const accessChangesChannel = "weft_access_changes";

/** Ids of accounts whose workspace memberships changed (joined, left, role changed). */
export type MembershipChanges = Announcements<readonly string[]>;

export function createMembershipChanges(): MembershipChanges {
  return createIdAnnouncements();
}

/** Queues the notifications in the transaction, so other processes hear them only if it commits. */
export async function notifyAccessChanges(
  tx: Transaction,
  changes: { credentialIds?: readonly string[]; accountIds?: readonly string[] },
): Promise<void> {
  const payloads = [
    ...(changes.credentialIds ?? []).map((id) => `credential:${id}`),
    ...(changes.accountIds ?? []).map((id) => `account:${id}`),
  ];
  for (const payload of payloads) await tx.execute(sql`select pg_notify(${accessChangesChannel}, ${payload})`);
}

/** Publishes other processes' revocations and membership changes here; resolves once listening. */
export function relayAccessChanges(
  database: DatabaseHandle,
  targets: { credentialRevocations: CredentialRevocations; membershipChanges: MembershipChanges },
): Promise<() => Promise<void>> {
  return database.listen(accessChangesChannel, (payload) => {
    const separator = payload.indexOf(":");
    const kind = payload.slice(0, separator);
    const id = payload.slice(separator + 1);
    if (kind === "credential") targets.credentialRevocations.publish([id]);
    if (kind === "account") targets.membershipChanges.publish([id]);
  });
}
