import type { AuditActor } from "../audit/record-audit-event.ts";
import type { StoredSecret } from "../db/schema/index.ts";
import { openSecret, type SealingKey, type SecretKeyring, sealSecret, secretHint } from "./secret-sealing.ts";

/** Who a secret's hint says changed it: the email when known, else the account id. */
export function changedByOf(actor: AuditActor): string | null {
  return actor.email ?? actor.accountId ?? null;
}

/** Seals each value under `key`, with its hint and who set it when. */
export function sealSecrets(
  key: SealingKey,
  target: { projectId: string; integration: string },
  values: Record<string, string>,
  change: { at: Date; actor: AuditActor },
): Record<string, StoredSecret> {
  return Object.fromEntries(
    Object.entries(values).map(([secret, value]) => [
      secret,
      {
        sealed: sealSecret(key, { ...target, secret }, value),
        hint: secretHint(value),
        changedAt: change.at.toISOString(),
        changedBy: changedByOf(change.actor),
      },
    ]),
  );
}

/**
 * The stored secrets re-sealed under the keyring's current key, their hints and authors kept; or
 * `undefined` when one of them opens with no key of the ring (nothing is then to be written).
 */
export function resealSecrets(
  keyring: SecretKeyring,
  row: { projectId: string; name: string; keyId: string; secrets: Record<string, StoredSecret> },
): Record<string, StoredSecret> | undefined {
  if (row.keyId === keyring.current.id) return row.secrets;
  const resealed: Record<string, StoredSecret> = {};
  for (const [secret, stored] of Object.entries(row.secrets)) {
    const binding = { projectId: row.projectId, integration: row.name, secret };
    const value = openSecret(keyring, row.keyId, binding, stored.sealed);
    if (value === undefined) return undefined;
    resealed[secret] = { ...stored, sealed: sealSecret(keyring.current, binding, value) };
  }
  return resealed;
}

/** Every secret of a row opened, or `undefined` when one of them opens with no key of the ring. */
export function openSecrets(
  keyring: SecretKeyring,
  row: { projectId: string; name: string; keyId: string; secrets: Record<string, StoredSecret> },
): Record<string, string> | undefined {
  const values: Record<string, string> = {};
  for (const [secret, stored] of Object.entries(row.secrets)) {
    const value = openSecret(
      keyring,
      row.keyId,
      { projectId: row.projectId, integration: row.name, secret },
      stored.sealed,
    );
    if (value === undefined) return undefined;
    values[secret] = value;
  }
  return values;
}
