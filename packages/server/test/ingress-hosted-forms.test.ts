import {
  basicAuthorization,
  createDatabaseGate,
  deployManifest,
  executionCount,
  executionRow,
  formCsrfTokenOf,
  startTestPlatform,
  type TestPlatform,
} from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostedFormBodyLimitBytes } from "../src/ingress/hosted-form-routes.ts";
import { createManualTimers } from "../src/shared/timers.ts";

const timers = createManualTimers();
const gate = createDatabaseGate();
let weft: TestPlatform;
const projectId = "prj_01jhostedforms0000000000000";
const otherProjectId = "prj_01jhostedforms0000000000001";

const signupSchema = {
  type: "object",
  properties: {
    name: { type: "string", title: "Your name", minLength: 2 },
    email: { type: "string", format: "email" },
    seats: { type: "integer", minimum: 1, maximum: 50 },
    plan: { type: "string", enum: ["free", "pro"] },
    newsletter: { type: "boolean" },
  },
  required: ["name", "seats"],
};

beforeAll(async () => {
  // No worker: its background claims would meet the closed gate and could be the transaction that
  // `gate.waiting()` sees, firing the timers before this request's budget exists.
  weft = await startTestPlatform({ timers, wrapDatabase: gate.wrap, env: { WEFT_ROLES: "auth,api,ingress" } });
  await deployManifest(weft, projectId, {
    version: 1,
    workflows: [{ name: "onboard" }],
    forms: [
      {
        name: "signup",
        workflow: "onboard",
        title: "Sign up for <Weft>",
        description: "Tell us who you are.",
        schema: signupSchema,
      },
      { name: "staff", workflow: "onboard", visibility: "internal", schema: signupSchema },
      { name: "closed", workflow: "onboard", disabled: true, schema: signupSchema },
      {
        name: "private",
        workflow: "onboard",
        schema: signupSchema,
        basicAuth: { username: "ann", password: "open sesame" },
      },
    ],
  });
  await deployManifest(weft, otherProjectId, {
    version: 1,
    workflows: [{ name: "onboard" }],
    forms: [{ name: "signup", workflow: "onboard", schema: signupSchema }],
  });
});
afterAll(() => weft.stop());

const formUrl = (name: string, project = projectId) => `${weft.url}/triggers/forms/${project}/${name}`;

async function openForm(name: string, headers: Record<string, string> = {}): Promise<{ page: string; token: string }> {
  const response = await fetch(formUrl(name), { headers });
  expect(response.status).toBe(200);
  const page = await response.text();
  return { page, token: formCsrfTokenOf(page) };
}

function post(name: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(formUrl(name), { method: "POST", body: new URLSearchParams(fields), headers, redirect: "manual" });
}

describe("GET a hosted form", () => {
  it("renders the form from its schema, with a CSRF token, uncached", async () => {
    const response = await fetch(formUrl("signup"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const page = await response.text();
    expect(page).toContain("<h1>Sign up for &lt;Weft&gt;</h1>");
    expect(page).toContain(
      '<label for="field-name">Your name<span class="required" aria-hidden="true">*</span></label>',
    );
    expect(page).toMatch(/<input type="email" id="field-email" name="email"/);
    expect(page).toMatch(/<input type="number" id="field-seats" name="seats" required/);
    expect(page).toContain('<select id="field-plan" name="plan">');
    expect(page).toMatch(/<input type="checkbox" value="true" id="field-newsletter"/);
    expect(page).toContain(`action="/triggers/forms/${projectId}/signup"`);
    expect(formCsrfTokenOf(page)).toMatch(/^\d+\.[\w-]+\.[\w-]+$/);
    const positions = ["name", "email", "seats", "plan", "newsletter"].map((name) =>
      page.indexOf(`id="field-${name}"`),
    );
    expect(positions.every((position, index) => position > (positions[index - 1] ?? 0))).toBe(true);
  });

  it("answers 404 for an internal form, an unknown form and an unknown project", async () => {
    for (const url of [formUrl("staff"), formUrl("nope"), formUrl("signup", "prj_01jnosuchproject000000000000")]) {
      const response = await fetch(url);
      expect(response.status).toBe(404);
      expect(await response.text()).toContain("Form not found");
    }
  });

  it("answers 401 with a Basic challenge without the right credentials, and renders with them", async () => {
    for (const headers of [{}, { authorization: basicAuthorization("ann", "wrong") }, { authorization: "Bearer x" }]) {
      const response = await fetch(formUrl("private"), { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Basic realm="[^"]+"/);
    }
    await openForm("private", { authorization: basicAuthorization("ann", "open sesame") });
  });

  it("answers 403 with a page for a disabled form", async () => {
    const response = await fetch(formUrl("closed"));
    expect(response.status).toBe(403);
    expect(await response.text()).toContain("This form is closed");
  });
});

describe("POST a hosted form", () => {
  it("enqueues the coerced submission and redirects to the confirmation page", async () => {
    const { token } = await openForm("signup");
    const before = await executionCount(weft, projectId);
    const response = await post("signup", {
      _csrf: token,
      name: "Ada",
      email: "",
      seats: "3",
      plan: "pro",
      newsletter: "true",
    });
    expect(response.status).toBe(303);
    const location = response.headers.get("location") ?? "";
    const match = /^\/triggers\/forms\/[^/]+\/signup\/submitted\?ref=(exe_[0-9a-z]{26})$/.exec(location);
    expect(match).not.toBeNull();
    const executionId = match?.[1] ?? "";
    expect(await executionCount(weft, projectId)).toBe(before + 1);
    const row = await executionRow(weft, executionId);
    expect(row).toMatchObject({
      workflow: "onboard",
      triggerKind: "form",
      triggerName: "signup",
      input: { name: "Ada", seats: 3, plan: "pro", newsletter: true },
    });
    const confirmation = await fetch(`${weft.url}${location}`);
    expect(confirmation.status).toBe(200);
    const page = await confirmation.text();
    expect(page).toContain("Thank you");
    expect(page).toContain(executionId);
  });

  it("accepts multipart/form-data", async () => {
    const { token } = await openForm("signup");
    const body = new FormData();
    body.set("_csrf", token);
    body.set("name", "Grace");
    body.set("seats", "7");
    const response = await fetch(formUrl("signup"), { method: "POST", body, redirect: "manual" });
    expect(response.status).toBe(303);
    const executionId = /ref=(exe_\w+)/.exec(response.headers.get("location") ?? "")?.[1] ?? "";
    expect((await executionRow(weft, executionId))?.input).toEqual({ name: "Grace", seats: 7, newsletter: false });
  });

  it("gives one execution for one rendered page, however often it is submitted", async () => {
    const { token } = await openForm("signup");
    const before = await executionCount(weft, projectId);
    const first = await post("signup", { _csrf: token, name: "Ada", seats: "1" });
    const second = await post("signup", { _csrf: token, name: "Ada", seats: "1" });
    expect(first.status).toBe(303);
    expect(second.headers.get("location")).toBe(first.headers.get("location"));
    expect(await executionCount(weft, projectId)).toBe(before + 1);
  });

  it("re-renders an invalid submission with 400, the values kept and each error beside its field", async () => {
    const { token } = await openForm("signup");
    const before = await executionCount(weft, projectId);
    const response = await post("signup", { _csrf: token, name: "A", seats: "99", plan: "pro", email: "a@b.example" });
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).toMatch(/id="field-name"[^>]* aria-invalid="true"[^>]* value="A">/);
    expect(page).toMatch(/<span class="error" id="field-name-error">[^<]+<\/span>/);
    expect(page).toMatch(/id="field-seats"[^>]* aria-invalid="true"[^>]* value="99">/);
    expect(page).toMatch(/<span class="error" id="field-seats-error">[^<]+<\/span>/);
    expect(page).toContain('value="a@b.example"');
    expect(page).toContain('<option value="pro" selected>pro</option>');
    expect(page).not.toContain('id="field-email-error"');
    expect(formCsrfTokenOf(page)).not.toBe(token);
    expect(await executionCount(weft, projectId)).toBe(before);
  });

  it("refuses a missing, forged, expired or foreign CSRF token with 403, enqueuing nothing", async () => {
    const { token } = await openForm("signup");
    const foreign = formCsrfTokenOf(await (await fetch(formUrl("signup", otherProjectId))).text());
    const [expires, nonce, mac] = token.split(".");
    const forged = `${expires}.${nonce}.${mac?.startsWith("A") ? "B" : "A"}${mac?.slice(1)}`;
    const before = await executionCount(weft, projectId);
    const refused: Record<string, string>[] = [{}, { _csrf: forged }, { _csrf: foreign }, { _csrf: "garbage" }];
    for (const fields of refused) {
      const response = await post("signup", { ...fields, name: "Ada", seats: "1" });
      expect(response.status).toBe(403);
      expect(await response.text()).toContain("This submission was refused");
    }
    weft.clock.advance(2 * 60 * 60 * 1000);
    const expired = await post("signup", { _csrf: token, name: "Ada", seats: "1" });
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain("This page has expired");
    expect(await executionCount(weft, projectId)).toBe(before);
  });

  it("refuses internal, unknown, disabled and unauthenticated forms without enqueuing", async () => {
    const { token } = await openForm("signup");
    const before = await executionCount(weft, projectId);
    expect((await post("staff", { _csrf: token, name: "Ada", seats: "1" })).status).toBe(404);
    expect((await post("nope", { _csrf: token, name: "Ada", seats: "1" })).status).toBe(404);
    expect((await post("closed", { _csrf: token, name: "Ada", seats: "1" })).status).toBe(403);
    const unauthenticated = await post("private", { _csrf: token, name: "Ada", seats: "1" });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get("www-authenticate")).toMatch(/^Basic realm=/);
    const other = await fetch(formUrl("signup"), {
      method: "POST",
      body: JSON.stringify({ name: "Ada" }),
      headers: { "content-type": "application/json" },
    });
    expect(other.status).toBe(415);
    expect(await executionCount(weft, projectId)).toBe(before);
  });

  it("refuses a body over the limit with a 413 page, enqueuing nothing", async () => {
    const { token } = await openForm("signup");
    const before = await executionCount(weft, projectId);
    const response = await post("signup", { _csrf: token, name: "x".repeat(hostedFormBodyLimitBytes), seats: "1" });
    expect(response.status).toBe(413);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await response.text()).toContain("This submission is too large");
    expect(await executionCount(weft, projectId)).toBe(before);
  });

  it("accepts a submission to a basic-auth form with its credentials", async () => {
    const authorization = basicAuthorization("ann", "open sesame");
    const { token } = await openForm("private", { authorization });
    const response = await post("private", { _csrf: token, name: "Ada", seats: "2" }, { authorization });
    expect(response.status).toBe(303);
  });

  it("answers 503 with Retry-After when the database is too slow for the budget, and leaves nothing behind", async () => {
    const { token } = await openForm("signup");
    const before = await executionCount(weft, projectId);
    gate.close();
    const pending = post("signup", { _csrf: token, name: "Slow", seats: "1" });
    await gate.waiting();
    timers.fireAll();
    const response = await pending;
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    expect(await response.text()).toContain("nothing was saved");
    gate.open();
    await gate.settled();
    expect(await executionCount(weft, projectId)).toBe(before);
  });
});
