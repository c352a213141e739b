import { and, asc, eq, gt, ne, or } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { alertWebhookSecrets } from "../db/schema/index.ts";
import { type ResealCounts, resealInBatches } from "../integrations/reseal-in-batches.ts";
import { openSecret, type SecretKeyring, sealSecret } from "../integrations/secret-sealing.ts";
import { webhookSecretBinding } from "./webhook-secrets.ts";

/**
 * Re-seals every webhook alert secret under another key than the keyring's current one (resumable
 * like the integrations' rotation); a row no key opens is counted and left as it is.
 */
export function rotateWebhookSecrets(
  db: Database,
  keyring: SecretKeyring,
  options: { batchSize: number },
): Promise<ResealCounts> {
  const stale = ne(alertWebhookSecrets.keyId, keyring.current.id);
  return resealInBatches(db, {
    selectBatch: (tx, after: { projectId: string; url: string } | undefined) =>
      tx
        .select()
        .from(alertWebhookSecrets)
        .where(
          and(
            stale,
            after === undefined
              ? undefined
              : or(
                  gt(alertWebhookSecrets.projectId, after.projectId),
                  and(eq(alertWebhookSecrets.projectId, after.projectId), gt(alertWebhookSecrets.url, after.url)),
                ),
          ),
        )
        .orderBy(asc(alertWebhookSecrets.projectId), asc(alertWebhookSecrets.url))
        .limit(options.batchSize)
        .for("update"),
    reseal: async (tx, row) => {
      const binding = webhookSecretBinding(row.projectId, row.url);
      const secret = openSecret(keyring, row.keyId, binding, row.sealed);
      if (secret === undefined) return false;
      await tx
        .update(alertWebhookSecrets)
        .set({ sealed: sealSecret(keyring.current, binding, secret), keyId: keyring.current.id })
        .where(and(eq(alertWebhookSecrets.projectId, row.projectId), eq(alertWebhookSecrets.url, row.url)));
      return true;
    },
    keyOf: (row) => ({ projectId: row.projectId, url: row.url }),
  });
}
