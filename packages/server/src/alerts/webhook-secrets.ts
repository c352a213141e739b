import type { AlertWebhookSecret, Manifest } from "@weft/contract";
import { and, eq } from "drizzle-orm";
import type { Database, Transaction } from "../db/database.ts";
import { alertWebhookSecrets } from "../db/schema/index.ts";
import { openSecret, type SecretBinding, type SecretKeyring, sealSecret } from "../integrations/secret-sealing.ts";
import { generateToken } from "../shared/secrets.ts";

/**
 * The signing secrets of webhook alerts: one per project and URL, made by the first deployment
 * that names the URL and shown in its answer only, kept sealed with the integrations' keyring.
 */

/** What a webhook secret is sealed to: its project and URL, so a sealed value moved elsewhere does not open. */
export function webhookSecretBinding(projectId: string, url: string): SecretBinding {
  return { projectId, integration: "alerts", secret: url };
}

export function webhookAlertUrls(manifest: Pick<Manifest, "alerts">): string[] {
  return manifest.alerts.flatMap((alert) => ("webhook" in alert ? [alert.webhook] : []));
}

/** Makes a secret for each URL the project has none for yet; returns those, the only time they are shown. */
export async function issueWebhookSecrets(
  tx: Transaction,
  keyring: SecretKeyring,
  request: { projectId: string; urls: string[]; now: Date },
): Promise<AlertWebhookSecret[]> {
  const issued: AlertWebhookSecret[] = [];
  for (const url of request.urls) {
    const secret = generateToken("whsec");
    const inserted = await tx
      .insert(alertWebhookSecrets)
      .values({
        projectId: request.projectId,
        url,
        sealed: sealSecret(keyring.current, webhookSecretBinding(request.projectId, url), secret),
        keyId: keyring.current.id,
        createdAt: request.now,
      })
      .onConflictDoNothing()
      .returning({ url: alertWebhookSecrets.url });
    if (inserted.length > 0) issued.push({ url, secret });
  }
  return issued;
}

/** The plaintext secret of a project's webhook URL, or undefined when there is none or no key opens it. */
export async function readWebhookSecret(
  db: Database,
  keyring: SecretKeyring,
  target: { projectId: string; url: string },
): Promise<string | undefined> {
  const [row] = await db
    .select()
    .from(alertWebhookSecrets)
    .where(and(eq(alertWebhookSecrets.projectId, target.projectId), eq(alertWebhookSecrets.url, target.url)));
  if (row === undefined) return undefined;
  return openSecret(keyring, row.keyId, webhookSecretBinding(target.projectId, target.url), row.sealed);
}
