import type { Context } from "hono";
import { sendEvent } from "../events/send-event.ts";
import type { AppEnv } from "../http/app-env.ts";
import { requestHeaderEntries } from "../http/request-body.ts";
import { secretMatchesHash } from "../shared/secrets.ts";
import type { ActiveEventWebhook } from "./find-ingress-definitions.ts";
import type { Budget } from "./hot-path-budget.ts";
import { readIdempotencyKey } from "./idempotency-key.ts";
import type { IngressContext } from "./ingress-context.ts";
import { ingressError, ingressFailure } from "./ingress-errors.ts";
import { buildWebhookInput } from "./webhook-input.ts";

/**
 * A call of a webhook that sends an event (`webhook({ name, event })`): the call, read as a
 * workflow's webhook input is (method, headers, query, body), is the event's data, and an
 * `Idempotency-Key` its id. The send starts, resumes and cancels as `events.send` does; 202 with the
 * event's id and the executions it started.
 */
export async function sendWebhookEvent(
  c: Context<AppEnv>,
  ingress: IngressContext,
  budget: Budget,
  webhook: ActiveEventWebhook,
  rawBody: string,
): Promise<Response> {
  const secret = webhook.definition.secret;
  if (secret !== undefined && !secretMatchesHash(c.req.header(secret.header) ?? "", secret.valueHash)) {
    return ingressError(c, "unauthorized", `The ${secret.header} header does not carry this webhook's secret.`);
  }
  const idempotency = readIdempotencyKey(c);
  if (!idempotency.ok) return ingressError(c, "invalid_body", idempotency.message);
  const built = buildWebhookInput({
    method: c.req.method,
    headers: requestHeaderEntries(c),
    url: c.req.url,
    rawBody,
    secretHeader: secret?.header,
  });
  if (!built.ok) return ingressError(c, "invalid_body", built.message);
  const { platform } = ingress;
  const sent = await sendEvent(
    platform.database.db,
    platform,
    {
      projectId: webhook.projectId,
      name: webhook.event,
      data: built.input,
      id: idempotency.key,
      source: { kind: "webhook", name: webhook.definition.name },
    },
    // A send whose caller was already told 503 rolls back rather than acting unannounced.
    { beforeCommit: () => budget.throwIfExpired() },
  );
  if (!sent.ok) return ingressFailure(c, sent.failure);
  const { id, duplicate, executions } = sent.value;
  return c.json(
    {
      message: duplicate ? "Event already sent with this Idempotency-Key." : "Event sent.",
      eventId: id,
      executionIds: executions.map((started) => started.executionId),
    },
    202,
  );
}
