import type { Context } from "hono";
import type { StoredManifest } from "../db/schema/stored-manifest.ts";
import type { AppEnv } from "../http/app-env.ts";
import { requestHeaderEntries } from "../http/request-body.ts";
import { secretMatchesHash } from "../shared/secrets.ts";
import { readIdempotencyKey } from "./idempotency-key.ts";
import { ingressError } from "./ingress-errors.ts";
import { buildWebhookInput } from "./webhook-input.ts";

/** A webhook call as its workflow or its event reads it, or the answer that refuses it. */
export type WebhookCall =
  | { ok: true; input: unknown; idempotencyKey: string | undefined }
  | { ok: false; response: Response };

/**
 * Reads a call of a webhook, whichever it does (start a workflow or send an event): its shared
 * secret checked, its `Idempotency-Key` read, and the call (method, headers, query, body) made
 * its input, the secret's header left out.
 */
export function readWebhookCall(
  c: Context<AppEnv>,
  webhook: StoredManifest["webhooks"][number],
  rawBody: string,
): WebhookCall {
  const secret = webhook.secret;
  if (secret !== undefined && !secretMatchesHash(c.req.header(secret.header) ?? "", secret.valueHash)) {
    const message = `The ${secret.header} header does not carry this webhook's secret.`;
    return { ok: false, response: ingressError(c, "unauthorized", message) };
  }
  const idempotency = readIdempotencyKey(c);
  if (!idempotency.ok) return { ok: false, response: ingressError(c, "invalid_body", idempotency.message) };
  const built = buildWebhookInput({
    method: c.req.method,
    headers: requestHeaderEntries(c),
    url: c.req.url,
    rawBody,
    secretHeader: secret?.header,
  });
  if (!built.ok) return { ok: false, response: ingressError(c, "invalid_body", built.message) };
  return { ok: true, input: built.input, idempotencyKey: idempotency.key };
}
