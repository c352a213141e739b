import type { JsonSchema } from "@weft/contract";
import type { Context } from "hono";
import type { EnqueueExecutionRequest } from "../engine/enqueue-execution.ts";
import type { AppEnv } from "../http/app-env.ts";
import { enqueueSubmission, validateSubmission } from "./accept-submission.ts";
import type { ActiveDefinition } from "./find-ingress-definitions.ts";
import type { Budget } from "./hot-path-budget.ts";
import type { IngressContext } from "./ingress-context.ts";
import { accepted, ingressError, ingressFailure } from "./ingress-errors.ts";

/** A programmatic submission, read from its request, and the words its JSON answers use. */
export interface JsonSubmission {
  value: unknown;
  schemas: { definition: JsonSchema | undefined; workflow: JsonSchema | undefined };
  trigger: EnqueueExecutionRequest["trigger"];
  idempotencyKey: string | undefined;
  /** The body as sent, whose digest an idempotency key is bound to. */
  rawBody: string;
  /** The message of invalid_input, when the value does not match the schemas. */
  mismatch: string;
  /** The message of the 202, for a new execution and for one an idempotency key had already started. */
  acceptedMessages: { created: string; repeated: string };
}

/**
 * The JSON answer to a form's or a webhook's programmatic submission: the value is checked against
 * the schemas (invalid_input with the issues), then its execution is enqueued, 202 with its id.
 */
export async function acceptJsonSubmission(
  c: Context<AppEnv>,
  ingress: IngressContext,
  budget: Budget,
  definition: ActiveDefinition<unknown>,
  submission: JsonSubmission,
): Promise<Response> {
  const validated = validateSubmission(submission.schemas, submission.value);
  if (!validated.ok) return ingressError(c, "invalid_input", submission.mismatch, { issues: validated.issues });
  const { idempotencyKey, rawBody } = submission;
  const enqueued = await enqueueSubmission(ingress, budget, definition, {
    input: validated.value,
    ...(idempotencyKey === undefined ? {} : { idempotencyKey, rawBody }),
    trigger: submission.trigger,
  });
  if (!enqueued.ok) return ingressFailure(c, enqueued.failure);
  const { created, executionId } = enqueued.value;
  return accepted(c, created ? submission.acceptedMessages.created : submission.acceptedMessages.repeated, [
    executionId,
  ]);
}
