import type { Context } from "hono";
import { Hono } from "hono";
import type { AppEnv } from "../http/app-env.ts";
import type { ClientIpResolver } from "../http/client-ip.ts";
import { limitPerClientIp } from "../rate-limit/rate-limit-middleware.ts";
import type { RateLimiter } from "../rate-limit/rate-limiter.ts";
import { parseStorableJson } from "../shared/storable-json.ts";
import { enqueueSubmission, validateSubmission } from "./accept-submission.ts";
import { basicAuthChallenge } from "./basic-auth.ts";
import { findActiveForm, projectsWithPublicForm } from "./find-ingress-definitions.ts";
import { checkFormAccess } from "./form-access.ts";
import type { Budget } from "./hot-path-budget.ts";
import { type IngressContext, runHotPath } from "./ingress-context.ts";
import { accepted, ingressError, ingressFailure, overBudgetMessage } from "./ingress-errors.ts";
import { isJsonContentType } from "./webhook-input.ts";

export interface ProgrammaticFormOptions {
  limiter: RateLimiter;
  clientIps: ClientIpResolver;
}

type ProjectChoice = { ok: true; projectId: string } | { ok: false; response: Response };

/** Without `projectId`, the name must belong to exactly one project's public form. */
async function chooseProject(c: Context<AppEnv>, ingress: IngressContext, formName: string): Promise<ProjectChoice> {
  const given = c.req.query("projectId");
  if (given !== undefined && given !== "") return { ok: true, projectId: given };
  const projects = await projectsWithPublicForm(ingress.platform.database.db, formName, 2);
  if (projects.length > 1) {
    return {
      ok: false,
      response: ingressError(
        c,
        "project_required",
        `Several projects define a form named "${formName}": add ?projectId=<project id> to say which one.`,
      ),
    };
  }
  const [only] = projects;
  if (only === undefined) return { ok: false, response: ingressError(c, "not_found", `No form named "${formName}".`) };
  return { ok: true, projectId: only };
}

async function submit(c: Context<AppEnv>, ingress: IngressContext, budget: Budget, rawBody: string): Promise<Response> {
  const formName = c.req.param("formName") ?? "";
  const choice = await chooseProject(c, ingress, formName);
  if (!choice.ok) return choice.response;
  const access = checkFormAccess(
    await findActiveForm(ingress.definitions, choice.projectId, formName),
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
  const body = parseStorableJson(rawBody);
  if (!body.ok) return ingressError(c, "invalid_body", body.message);
  const form = access.form;
  const validated = validateSubmission(
    { definition: form.definition.schema, workflow: form.workflow.inputSchema },
    body.value,
  );
  if (!validated.ok) {
    return ingressError(c, "invalid_input", "The submission does not match the form's schema.", {
      issues: validated.issues,
    });
  }
  const enqueued = await enqueueSubmission(ingress, budget, form, {
    input: validated.value,
    trigger: { kind: "form", name: form.definition.name },
  });
  if (!enqueued.ok) return ingressFailure(c, enqueued.failure);
  return accepted(c, "Submission accepted.", [enqueued.value.executionId]);
}

/** `POST {base_url}/forms/:formName[?projectId=…]`: JSON submissions, limited per client IP and form. */
export function programmaticFormRoutes(ingress: IngressContext, options: ProgrammaticFormOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const limit = limitPerClientIp(
    options.limiter,
    options.clientIps,
    {
      limited: (c) => ingressError(c, "rate_limited", "Too many submissions to this form; retry later."),
      storeFailed: (c) => ingressError(c, "unavailable", overBudgetMessage),
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
