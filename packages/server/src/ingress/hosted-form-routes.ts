import type { Context } from "hono";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { StoredForm } from "../db/schema/stored-manifest.ts";
import type { AppEnv } from "../http/app-env.ts";
import type { ClientIpResolver } from "../http/client-ip.ts";
import { limitPerClientIp } from "../rate-limit/rate-limit-middleware.ts";
import type { RateLimiter } from "../rate-limit/rate-limiter.ts";
import { checkStorableJson, describeUnstorable } from "../shared/storable-json.ts";
import { enqueueSubmission, validateSubmission } from "./accept-submission.ts";
import { basicAuthChallenge } from "./basic-auth.ts";
import { coerceFormSubmission, type FormSubmission, submissionFromEntries } from "./coerce-form-submission.ts";
import { checkCsrfTokenUnderKeys, csrfFieldName, issueCsrfToken } from "./csrf-token.ts";
import { type ActiveDefinition, findActiveDefinition } from "./find-ingress-definitions.ts";
import { checkFormAccess, type FormAccess } from "./form-access.ts";
import { formFieldsFromSchema, humanize } from "./form-fields.ts";
import { renderConfirmationPage, renderErrorPage, renderFormPage } from "./form-page.ts";
import { type Budget, budgetRetryAfterSeconds } from "./hot-path-budget.ts";
import { type IngressContext, runHotPath } from "./ingress-context.ts";
import { ingressCodeOf, ingressErrorStatus, ingressFailureHeaders } from "./ingress-errors.ts";

/** Largest hosted form submission accepted (413 above), the platform's default. */
export const hostedFormBodyLimitBytes = 1024 * 1024;

/** Pages carry a CSRF token or a submission's reference: never cache them anywhere. */
const noStore = { "Cache-Control": "no-store" };

type Form = ActiveDefinition<StoredForm>;

function formTitle(form: StoredForm): string {
  return form.title ?? humanize(form.name);
}

function formPath(projectId: string, formName: string): string {
  return `/triggers/forms/${encodeURIComponent(projectId)}/${encodeURIComponent(formName)}`;
}

function errorPage(
  c: Context<AppEnv>,
  status: ContentfulStatusCode,
  title: string,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return c.html(renderErrorPage({ status, title, message }), status, { ...noStore, ...headers });
}

/** The page for each way `checkFormAccess` refuses. */
function refusalPage(c: Context<AppEnv>, refusal: "not_found" | "unauthorized" | "disabled", form?: Form): Response {
  switch (refusal) {
    case "not_found":
      return errorPage(c, 404, "Form not found", "There is no form at this address. Check the link you followed.");
    case "unauthorized":
      return errorPage(c, 401, "Sign-in required", "This form needs a username and password.", {
        "WWW-Authenticate": basicAuthChallenge(form === undefined ? "Weft form" : formTitle(form.definition)),
      });
    case "disabled":
      return errorPage(c, 403, "This form is closed", "It is not accepting responses at the moment.");
  }
}

function overBudgetPage(c: Context<AppEnv>): Response {
  return errorPage(
    c,
    503,
    "Please try again",
    "We could not record your response just now, and nothing was saved. Please submit again in a few seconds.",
  );
}

function showForm(
  c: Context<AppEnv>,
  ingress: IngressContext,
  form: Form,
  status: ContentfulStatusCode,
  refusal?: { submitted: FormSubmission; errors: Map<string | undefined, string[]> },
): Response {
  const page = renderFormPage({
    title: formTitle(form.definition),
    description: form.definition.description,
    fields: formFieldsFromSchema(form.definition.schema),
    action: formPath(form.projectId, form.definition.name),
    csrfToken: issueCsrfToken(
      ingress.csrfKey,
      { projectId: form.projectId, formName: form.definition.name },
      ingress.platform.clock.now(),
    ),
    ...refusal,
  });
  return c.html(page, status, noStore);
}

async function readSubmission(c: Context<AppEnv>): Promise<FormSubmission | undefined> {
  const type = c.req.header("content-type")?.toLowerCase() ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded") && !type.startsWith("multipart/form-data")) {
    return undefined;
  }
  try {
    return submissionFromEntries(await c.req.formData());
  } catch {
    return undefined;
  }
}

/** Schema issues are keyed by their top-level property, which is the field they belong to. */
function errorsByField(issues: { field: string | undefined; message: string }[]): Map<string | undefined, string[]> {
  const errors = new Map<string | undefined, string[]>();
  for (const issue of issues) errors.set(issue.field, [...(errors.get(issue.field) ?? []), issue.message]);
  return errors;
}

async function acceptForm(
  c: Context<AppEnv>,
  ingress: IngressContext,
  budget: Budget,
  form: Form,
  submission: FormSubmission,
): Promise<Response> {
  const binding = { projectId: form.projectId, formName: form.definition.name };
  const csrfValue = submission.get(csrfFieldName)?.at(-1);
  const csrf = checkCsrfTokenUnderKeys(
    ingress.csrfCheckKeys,
    binding,
    typeof csrfValue === "string" ? csrfValue : undefined,
    ingress.platform.clock.now(),
  );
  if (!csrf.ok) {
    const expired = csrf.reason === "expired";
    return errorPage(
      c,
      403,
      expired ? "This page has expired" : "This submission was refused",
      expired
        ? "The form was open too long. Go back, reload the page and submit again."
        : "It did not come from this form's page. Open the form again and submit it from there.",
    );
  }
  const fields = formFieldsFromSchema(form.definition.schema);
  const coerced = coerceFormSubmission(fields, submission);
  const storable = checkStorableJson(coerced.value);
  if (!storable.ok) {
    const field = storable.path[0];
    const message = `This answer cannot be accepted: ${describeUnstorable(storable)}.`;
    return showForm(c, ingress, form, 400, {
      submitted: submission,
      errors: errorsByField([{ field: typeof field === "string" ? field : undefined, message }]),
    });
  }
  const fieldNames = new Set(fields.map((field) => field.name));
  const validated = validateSubmission(
    { definition: form.definition.schema, workflow: form.workflow.inputSchema },
    coerced.value,
  );
  const issues = [
    ...coerced.issues,
    ...(validated.ok ? [] : validated.issues)
      .map((issue) => {
        const top = issue.path.split(".")[0] ?? "";
        return { field: fieldNames.has(top) ? top : undefined, message: issue.message };
      })
      .filter(
        (issue) => !coerced.issues.some((earlier) => earlier.field !== undefined && earlier.field === issue.field),
      ),
  ];
  if (issues.length > 0 || !validated.ok) {
    return showForm(c, ingress, form, 400, { submitted: submission, errors: errorsByField(issues) });
  }
  const enqueued = await enqueueSubmission(ingress, budget, form, {
    input: validated.value,
    // One rendered page gives one execution, however often it is submitted (double clicks, retries after a 503).
    idempotencyKey: csrf.nonce,
    trigger: { kind: "form", name: form.definition.name },
  });
  if (!enqueued.ok) {
    const { failure } = enqueued;
    const code = ingressCodeOf(failure);
    return errorPage(
      c,
      ingressErrorStatus[code],
      "This submission was not accepted",
      failure.message,
      ingressFailureHeaders(failure),
    );
  }
  const ref = encodeURIComponent(enqueued.value.executionId);
  const confirmation = `${formPath(form.projectId, form.definition.name)}/submitted?ref=${ref}`;
  return c.redirect(confirmation, 303);
}

/** `GET` and `POST /triggers/forms/:projectId/:formName`, and the confirmation page after a submission. */
export function hostedFormRoutes(
  ingress: IngressContext,
  limits: { limiter: RateLimiter; clientIps: ClientIpResolver },
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const path = "/triggers/forms/:projectId/:formName";

  /** A page's work on the hot path, given the access the request has to the form its path names. */
  const onForm = (
    c: Context<AppEnv, typeof path>,
    answer: (access: FormAccess, budget: Budget) => Promise<Response> | Response,
  ) =>
    runHotPath(
      ingress,
      c,
      async (budget) => {
        const form = await findActiveDefinition(
          ingress.definitions,
          c.req.param("projectId"),
          "forms",
          c.req.param("formName"),
        );
        return answer(checkFormAccess(form, c.req.header("authorization")), budget);
      },
      () => overBudgetPage(c),
    );

  app.get(path, (c) =>
    onForm(c, (access) =>
      access.ok ? showForm(c, ingress, access.form, 200) : refusalPage(c, access.refusal, access.form),
    ),
  );

  const limitBody = bodyLimit({
    maxSize: hostedFormBodyLimitBytes,
    onError: (c) =>
      errorPage(c, 413, "This submission is too large", "Shorten your answers and submit again.", {
        Connection: "close",
      }),
  });

  // Like the programmatic endpoint: per client and form, counted before the body is read.
  const limitSubmissions = limitPerClientIp(
    limits.limiter,
    limits.clientIps,
    {
      limited: (c, retryAfterSeconds) =>
        errorPage(
          c,
          429,
          "Too many submissions",
          `This form has received too many submissions from your network. Please try again in ${retryAfterSeconds} seconds.`,
        ),
      storeFailed: (c) => {
        c.header("Retry-After", String(budgetRetryAfterSeconds));
        return overBudgetPage(c);
      },
    },
    (c) => `${c.req.param("projectId")}|${c.req.param("formName")}`,
  );

  app.post(path, limitSubmissions, limitBody, async (c) => {
    const submission = await readSubmission(c);
    return onForm(c, (access, budget) => {
      if (!access.ok) return refusalPage(c, access.refusal, access.form);
      if (submission === undefined) {
        return errorPage(c, 415, "This submission was refused", "Submit the form from its page.");
      }
      return acceptForm(c, ingress, budget, access.form, submission);
    });
  });

  app.get(`${path}/submitted`, (c) =>
    onForm(c, (access) => {
      if (!access.ok && access.refusal !== "disabled") return refusalPage(c, access.refusal, access.form);
      const form = access.ok ? access.form : (access.form as Form);
      const reference = c.req.query("ref");
      const page = renderConfirmationPage({
        title: formTitle(form.definition),
        reference: reference !== undefined && /^exe_[0-9a-z]{26}$/.test(reference) ? reference : undefined,
        again: formPath(form.projectId, form.definition.name),
      });
      return c.html(page, 200, noStore);
    }),
  );
  return app;
}
