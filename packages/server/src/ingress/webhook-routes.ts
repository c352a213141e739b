import type { Context } from "hono";
import { Hono } from "hono";
import type { AppEnv } from "../http/app-env.ts";
import { readBodyText } from "../http/request-body.ts";
import { acceptJsonSubmission } from "./accept-json-submission.ts";
import { findActiveDefinition, findActiveEventWebhook } from "./find-ingress-definitions.ts";
import type { Budget } from "./hot-path-budget.ts";
import { type IngressContext, runHotPath } from "./ingress-context.ts";
import { ingressError, overBudgetMessage } from "./ingress-errors.ts";
import { readWebhookCall } from "./webhook-call.ts";
import { sendWebhookEvent } from "./webhook-event.ts";

/** Largest webhook body accepted (413 above): senders' events are small, and each is stored as input. */
export const webhookBodyLimitBytes = 256 * 1024;

async function receive(
  c: Context<AppEnv>,
  ingress: IngressContext,
  budget: Budget,
  rawBody: string,
): Promise<Response> {
  const projectId = c.req.param("projectId") ?? "";
  const webhookName = c.req.param("webhookName") ?? "";
  const webhook = await findActiveDefinition(ingress.definitions, projectId, "webhooks", webhookName);
  if (webhook === undefined) {
    const sending = await findActiveEventWebhook(ingress.definitions, projectId, webhookName);
    if (sending !== undefined) return sendWebhookEvent(c, ingress, budget, sending, rawBody);
    return ingressError(c, "not_found", `No webhook named "${webhookName}" in that project.`);
  }
  const call = readWebhookCall(c, webhook.definition, rawBody);
  if (!call.ok) return call.response;
  return acceptJsonSubmission(c, ingress, budget, webhook, {
    value: call.input,
    schemas: { definition: undefined, workflow: webhook.workflow.inputSchema },
    trigger: { kind: "webhook", name: webhookName },
    idempotencyKey: call.idempotencyKey,
    rawBody,
    mismatch: "The call does not match the workflow's input schema.",
    acceptedMessages: { created: "Webhook accepted.", repeated: "Webhook already accepted with this Idempotency-Key." },
  });
}

/** `POST /triggers/webhooks/:projectId/:webhookName`: any content type, optional shared secret. */
export function webhookRoutes(ingress: IngressContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post("/triggers/webhooks/:projectId/:webhookName", async (c) => {
    const body = await readBodyText(c, webhookBodyLimitBytes);
    if (!body.ok) {
      // The unread rest of the body is still on the socket: close it rather than reuse it.
      return ingressError(c, "payload_too_large", `The body is larger than ${webhookBodyLimitBytes} bytes.`, {
        headers: { Connection: "close" },
      });
    }
    return runHotPath(
      ingress,
      c,
      (budget) => receive(c, ingress, budget, body.text),
      () => ingressError(c, "unavailable", overBudgetMessage),
    );
  });
  return app;
}
