import { and, asc, eq, gt, ne, or } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { alertWebhookSecrets } from "../db/schema/index.ts";
import { openSecret, type SecretKeyring, sealSecret } from "../integrations/secret-sealing.ts";
import { webhookSecretBinding } from "./webhook-secrets.ts";

/**
 * Re-seals every webhook alert secret under another key than the keyring's current one, in
 * batches of one transaction each (resumable like the integrations' rotation); a row no key opens
 * is counted and left as it is.
 */
export async function rotateWebhookSecrets(
  db: Database,
  keyring: SecretKeyring,
  options: { batchSize: number },
): Promise<{ resealed: number; unopenable: number }> {
  const stale = ne(alertWebhookSecrets.keyId, keyring.current.id);
  const done = { resealed: 0, unopenable: 0 };
  let after: { projectId: string; url: string } | undefined;
  for (;;) {
    const rows = await db.transaction(async (tx) => {
      const batch = await tx
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
        .for("update");
      for (const row of batch) {
        const binding = webhookSecretBinding(row.projectId, row.url);
        const secret = openSecret(keyring, row.keyId, binding, row.sealed);
        if (secret === undefined) {
          done.unopenable += 1;
          continue;
        }
        await tx
          .update(alertWebhookSecrets)
          .set({ sealed: sealSecret(keyring.current, binding, secret), keyId: keyring.current.id })
          .where(and(eq(alertWebhookSecrets.projectId, row.projectId), eq(alertWebhookSecrets.url, row.url)));
        done.resealed += 1;
      }
      return batch;
    });
    const last = rows.at(-1);
    if (last === undefined) return done;
    after = { projectId: last.projectId, url: last.url };
  }
}
