import { describe, expect, it } from "vitest";
import { coerceFormSubmission, submissionFromEntries } from "../src/ingress/coerce-form-submission.ts";
import { formFieldsFromSchema, humanize } from "../src/ingress/form-fields.ts";
import { renderConfirmationPage, renderErrorPage, renderFormPage } from "../src/ingress/form-page.ts";
import { escapeHtml, html } from "../src/ingress/html.ts";

const schema = {
  type: "object",
  properties: {
    full_name: { type: "string", title: "Your name", description: "As on your passport" },
    email: { type: "string", format: "email" },
    age: { type: "integer", minimum: 18, maximum: 130 },
    rating: { type: "number" },
    subscribe: { type: "boolean" },
    plan: { type: "string", enum: ["free", "pro"] },
    size: { enum: [1, 2, 3] },
    message: { type: "string", maxLength: 5000 },
    start: { type: "string", format: "date" },
    meeting: { type: "string", format: "date-time" },
    tags: { type: "array", items: { enum: ["red", "blue"] } },
    extra: { type: "object" },
    nickname: { type: ["string", "null"] },
  },
  required: ["full_name", "email", "age"],
};

describe("form fields from a JSON Schema", () => {
  it("pick a control per type and format, with labels and required markers", () => {
    const fields = formFieldsFromSchema(schema);
    expect(fields.map((field) => [field.name, field.kind])).toEqual([
      ["full_name", "text"],
      ["email", "email"],
      ["age", "integer"],
      ["rating", "number"],
      ["subscribe", "checkbox"],
      ["plan", "select"],
      ["size", "select"],
      ["message", "textarea"],
      ["start", "date"],
      ["meeting", "datetime"],
      ["tags", "multiselect"],
      ["extra", "json"],
      ["nickname", "text"],
    ]);
    expect(fields[0]).toMatchObject({ label: "Your name", description: "As on your passport", required: true });
    expect(fields[3]).toMatchObject({ label: "Rating", required: false });
    expect(fields[2]).toMatchObject({ minimum: 18, maximum: 130 });
  });

  it("humanize property names", () => {
    expect(humanize("first_name")).toBe("First name");
    expect(humanize("dateOfBirth")).toBe("Date of birth");
  });
});

describe("coercion of submitted text", () => {
  const fields = formFieldsFromSchema(schema);
  const coerce = (entries: [string, string][]) => coerceFormSubmission(fields, submissionFromEntries(entries));

  it("turns text into the schema's types and drops empty optional fields", () => {
    const result = coerce([
      ["full_name", "Ada"],
      ["email", "ada@example.com"],
      ["age", " 36 "],
      ["rating", "4.5"],
      ["subscribe", "true"],
      ["plan", "pro"],
      ["size", "2"],
      ["message", "line one\r\nline two"],
      ["start", "2026-03-01"],
      ["meeting", "2026-03-01T09:30"],
      ["tags", "red"],
      ["tags", "blue"],
      ["extra", '{"a": [1]}'],
      ["nickname", ""],
      ["unknown", "ignored"],
    ]);
    expect(result.issues).toEqual([]);
    expect(result.value).toEqual({
      full_name: "Ada",
      email: "ada@example.com",
      age: 36,
      rating: 4.5,
      subscribe: true,
      plan: "pro",
      size: 2,
      message: "line one\nline two",
      start: "2026-03-01",
      meeting: "2026-03-01T09:30:00Z",
      tags: ["red", "blue"],
      extra: { a: [1] },
    });
  });

  it("reads an absent checkbox as false and reports text that cannot be coerced, per field", () => {
    const result = coerce([
      ["full_name", "  "],
      ["email", "a@b.c"],
      ["age", "36.5"],
      ["rating", "lots"],
      ["plan", "enterprise"],
      ["extra", "{nope"],
    ]);
    expect(result.value).toEqual({ email: "a@b.c", subscribe: false });
    expect(result.issues).toEqual([
      { field: "full_name", message: "This field is required." },
      { field: "age", message: "Enter a whole number." },
      { field: "rating", message: "Enter a number." },
      { field: "plan", message: "Choose one of the listed options." },
      { field: "extra", message: "Enter valid JSON." },
    ]);
  });

  it("refuses files in fields", () => {
    const submission = submissionFromEntries([
      ["full_name", new File(["x"], "x.txt")],
      ["email", "a@b.c"],
      ["age", "20"],
    ]);
    expect(coerceFormSubmission(fields, submission).issues).toEqual([
      { field: "full_name", message: "Files are not accepted here." },
    ]);
  });
});

describe("hosted form pages", () => {
  const fields = formFieldsFromSchema(schema);

  it("escape everything interpolated", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    expect(html`<p>${"<script>"}</p>${html`<b>${"&"}</b>`}`.value).toBe("<p>&lt;script&gt;</p><b>&amp;</b>");
  });

  it("render a labelled, accessible form with a hidden CSRF token and no script", () => {
    const page = renderFormPage({
      title: "Sign <up>",
      description: "Tell us about you",
      fields,
      action: "/triggers/forms/prj_1/signup",
      csrfToken: "tok.en",
    });
    expect(page).toContain('<html lang="en">');
    expect(page).toContain("<title>Sign &lt;up&gt;</title>");
    expect(page).toContain('<form method="post" action="/triggers/forms/prj_1/signup" novalidate>');
    expect(page).toContain('<input type="hidden" name="_csrf" value="tok.en">');
    expect(page).toContain(
      '<label for="field-full_name">Your name<span class="required" aria-hidden="true">*</span></label>',
    );
    expect(page).toMatch(
      /<input type="text" id="field-full_name" name="full_name" required aria-required="true" aria-describedby="field-full_name-hint"/,
    );
    expect(page).toMatch(/<input type="email" id="field-email"/);
    expect(page).toMatch(/<input type="number" id="field-age"[^>]* min="18" max="130" step="1"/);
    expect(page).toMatch(/<input type="checkbox" value="true" id="field-subscribe" name="subscribe">/);
    expect(page).toContain('<select id="field-plan" name="plan">');
    expect(page).toContain('<option value="pro">pro</option>');
    expect(page).toMatch(/<textarea id="field-message" name="message" maxlength="5000"><\/textarea>/);
    expect(page).toMatch(/<input type="date" id="field-start"/);
    expect(page).toMatch(/<input type="datetime-local" id="field-meeting"/);
    expect(page).toContain('<input type="checkbox" name="tags" id="field-tags-1" value="blue">');
    expect(page).not.toContain("<script");
    expect(page).not.toContain('role="alert"');
  });

  it("re-render with the submitted values kept and each error beside its field", () => {
    const page = renderFormPage({
      title: "Sign up",
      description: undefined,
      fields,
      action: "/a",
      csrfToken: "t",
      submitted: submissionFromEntries([
        ["full_name", '"><script>alert(1)</script>'],
        ["age", "12"],
        ["plan", "pro"],
        ["subscribe", "true"],
        ["tags", "blue"],
      ]),
      errors: new Map([
        ["age", ["Must be >= 18"]],
        [undefined, ["Something about the whole form"]],
      ]),
    });
    expect(page).toContain("<title>Error: Sign up</title>");
    expect(page).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(page).not.toContain("<script>alert");
    expect(page).toMatch(/id="field-age"[^>]* aria-invalid="true" aria-describedby="field-age-error"[^>]* value="12">/);
    expect(page).toContain('<span class="error" id="field-age-error">Must be &gt;= 18</span>');
    expect(page).toContain('<div class="summary" role="alert"');
    expect(page).toContain('<a href="#field-age">Age: Must be &gt;= 18</a>');
    expect(page).toContain("<li>Something about the whole form</li>");
    expect(page).toContain('<option value="pro" selected>pro</option>');
    expect(page).toMatch(/name="subscribe" checked>/);
    expect(page).toContain('value="blue" checked>');
    expect(page).not.toContain('value="red" checked>');
  });

  it("render the confirmation and error pages escaped", () => {
    const confirmation = renderConfirmationPage({ title: "A & B", reference: "exe_1", again: "/x" });
    expect(confirmation).toContain("A &amp; B");
    expect(confirmation).toContain('<code id="submission-reference">exe_1</code>');
    const error = renderErrorPage({ status: 403, title: "Closed", message: "<b>no</b>" });
    expect(error).toContain("Error 403");
    expect(error).toContain("&lt;b&gt;no&lt;/b&gt;");
  });
});
