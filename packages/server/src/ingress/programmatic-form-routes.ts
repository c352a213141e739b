import { definitionNamePattern } from "@weft/contract";
import type { Context } from "hono";
import { Hono } from "hono";
import { projectClaimingFormName } from "../deployments/global-form-names.ts";
import type { AppEnv } from "../http/app-env.ts";
import type { ClientIpResolver } from "../http/client-ip.ts";
import { limitPerClientIp } from "../rate-limit/rate-limit-middleware.ts";
import type { RateLimiter } from "../rate-limit/rate-limiter.ts";
import { parseStorableJson } from "../shared/storable-json.ts";
import { acceptJsonSubmission } from "./accept-json-submission.ts";
import { basicAuthChallenge } from "./basic-auth.ts";
import { findActiveDefinition } from "./find-ingress-definitions.ts";
import { checkFormAccess } from "./form-access.ts";
import { type Budget, budgetRetryAfterSeconds } from "./hot-path-budget.ts";
import { readIdempotencyKey } from "./idempotency-key.ts";
import { type IngressContext, runHotPath } from "./ingress-context.ts";
import { ingressError, overBudgetMessage } from "./ingress-errors.ts";
import { isJsonContentType } from "./webhook-input.ts";

export interface ProgrammaticFormOptions {
  limiter: RateLimiter;
  clientIps: ClientIpResolver;
}

type ProjectChoice = { ok: true; projectId: string } | { ok: false; response: Response };

/**
 * Without `projectId`, a name reaches only the form that claims it instance-wide (`globalName`), so
 * a submission never lands in another tenant's form because its name happened to be unique.
 */
async function chooseProject(c: Context<AppEnv>, ingress: IngressContext, formName: string): Promise<ProjectChoice> {
  const given = c.req.query("projectId");
  if (given !== undefined && given !== "") return { ok: true, projectId: given };
  // A name that cannot exist names nothing, as with a projectId: no lookup, the ordinary 404.
  if (!definitionNamePattern.test(formName)) {
    return { ok: false, response: ingressError(c, "not_found", `No form named "${formName}".`) };
  }
  const claimant = await projectClaimingFormName(ingress.platform.database.db, formName);
  if (claimant !== undefined) return { ok: true, projectId: claimant };
  return {
    ok: false,
    response: ingressError(
      c,
      "project_required",
      `No form claims the name "${formName}" instance-wide: add ?projectId=<project id> to say whose form it is.`,
    ),
  };
}

async function submit(c: Context<AppEnv>, ingress: IngressContext, budget: Budget, rawBody: string): Promise<Response> {
  const formName = c.req.param("formName") ?? "";
  const choice = await chooseProject(c, ingress, formName);
  if (!choice.ok) return choice.response;
  const access = checkFormAccess(
    await findActiveDefinition(ingress.definitions, choice.projectId, "forms", formName),
    c.req.header("authorization"),
  );
  if (!access.ok) {
    switch (access.refusal) {
      case "not_found":
        return ingressError(c, "not_found", `No form named "${formName}" in that project.`);
      case "unauthorized":
        return ingressError(c, "unauthorized", "This form needs basic-auth credentials.", {
          headers: { "WWW-Authenticate": basicAuthChallenge(access.form?.definition.title ?? formName) },
        });
      case "disabled":
        return ingressError(c, "form_disabled", `The form "${formName}" is disabled.`);
    }
  }
  if (!isJsonContentType(c.req.header("content-type"))) {
    return ingressError(c, "unsupported_media_type", "Send the submission as JSON (Content-Type: application/json).");
  }
  const idempotency = readIdempotencyKey(c);
  if (!idempotency.ok) return ingressError(c, "invalid_body", idempotency.message);
  const body = parseStorableJson(rawBody);
  if (!body.ok) return ingressError(c, "invalid_body", body.message);
  const form = access.form;
  return acceptJsonSubmission(c, ingress, budget, form, {
    value: body.value,
    schemas: { definition: form.definition.schema, workflow: form.workflow.inputSchema },
    trigger: { kind: "form", name: form.definition.name },
    idempotencyKey: idempotency.key,
    rawBody,
    mismatch: "The submission does not match the form's schema.",
    acceptedMessages: {
      created: "Submission accepted.",
      repeated: "Submission already accepted with this Idempotency-Key.",
    },
  });
}

/** `POST {base_url}/forms/:formName[?projectId=…]`: JSON submissions, limited per client IP and form. */
export function programmaticFormRoutes(ingress: IngressContext, options: ProgrammaticFormOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const limit = limitPerClientIp(
    options.limiter,
    options.clientIps,
    {
      limited: (c) => ingressError(c, "rate_limited", "Too many submissions to this form; retry later."),
      storeFailed: (c) => {
        c.header("Retry-After", String(budgetRetryAfterSeconds));
        return ingressError(c, "unavailable", overBudgetMessage);
      },
    },
    (c) => `${c.req.query("projectId") ?? ""}|${c.req.param("formName")}`,
  );
  app.post("/forms/:formName", limit, async (c) => {
    const rawBody = await c.req.text();
    return runHotPath(
      ingress,
      c,
      (budget) => submit(c, ingress, budget, rawBody),
      () => ingressError(c, "unavailable", overBudgetMessage),
    );
  });
  return app;
}
