import type { Context } from "hono";
import { eventRequestDigest, sendEvent } from "../events/send-event.ts";
import type { AppEnv } from "../http/app-env.ts";
import type { ActiveEventWebhook } from "./find-ingress-definitions.ts";
import type { Budget } from "./hot-path-budget.ts";
import type { IngressContext } from "./ingress-context.ts";
import { ingressFailure } from "./ingress-errors.ts";
import { readWebhookCall } from "./webhook-call.ts";

/**
 * A call of a webhook that sends an event (`webhook({ name, event })`): the call, read as a
 * workflow's webhook input is (method, headers, query, body), is the event's data, and an
 * `Idempotency-Key` its id, bound to the body (the same key with another body is refused, 409
 * `idempotency_key_reused`). The send starts, resumes and cancels as `events.send` does; 202 with the
 * event's id and the executions it started.
 */
export async function sendWebhookEvent(
  c: Context<AppEnv>,
  ingress: IngressContext,
  budget: Budget,
  webhook: ActiveEventWebhook,
  rawBody: string,
): Promise<Response> {
  const call = readWebhookCall(c, webhook.definition, rawBody);
  if (!call.ok) return call.response;
  const { platform } = ingress;
  const sent = await sendEvent(
    platform.database.db,
    platform,
    {
      projectId: webhook.projectId,
      name: webhook.event,
      data: call.input,
      id: call.idempotencyKey,
      // The body as sent, not the data: a retried delivery may change a header the data holds.
      requestDigest: call.idempotencyKey === undefined ? undefined : eventRequestDigest(webhook.event, rawBody),
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
