import type { FormSubmission } from "./coerce-form-submission.ts";
import { csrfFieldName } from "./csrf-token.ts";
import type { FormField } from "./form-fields.ts";
import { type HtmlValue, html, type SafeHtml } from "./html.ts";
import { renderPage } from "./page-layout.ts";

export interface FormPageOptions {
  title: string;
  description: string | undefined;
  fields: readonly FormField[];
  action: string;
  csrfToken: string;
  /** What the visitor submitted last time (re-render after a refusal); `undefined` on first display. */
  submitted?: FormSubmission;
  /** Messages per field name; `undefined` as key for problems with the submission as a whole. */
  errors?: ReadonlyMap<string | undefined, string[]>;
}

const inputTypes: Partial<Record<FormField["kind"], string>> = {
  text: "text",
  email: "email",
  url: "url",
  number: "number",
  integer: "number",
  date: "date",
  datetime: "datetime-local",
  time: "time",
};

function fieldId(field: FormField): string {
  return `field-${field.name}`;
}

function defaultText(field: FormField): string {
  const value = field.defaultValue;
  if (value === undefined || value === null) return "";
  if (field.kind === "json") return JSON.stringify(value, null, 2);
  return typeof value === "object" ? "" : String(value);
}

/** The values a field shows: what was submitted, or else the schema's default. */
function shownValues(field: FormField, submitted: FormSubmission | undefined): string[] {
  if (submitted !== undefined) {
    return (submitted.get(field.name) ?? []).filter((value): value is string => typeof value === "string");
  }
  if (field.kind === "multiselect" && Array.isArray(field.defaultValue)) return field.defaultValue.map(String);
  const text = defaultText(field);
  return text === "" ? [] : [text];
}

function describedBy(field: FormField, hasErrors: boolean): string | undefined {
  const ids = [
    field.description !== undefined ? `${fieldId(field)}-hint` : undefined,
    hasErrors ? `${fieldId(field)}-error` : undefined,
  ].filter((id) => id !== undefined);
  return ids.length > 0 ? ids.join(" ") : undefined;
}

function controlAttributes(field: FormField, errors: string[]): SafeHtml {
  const described = describedBy(field, errors.length > 0);
  return html`id="${fieldId(field)}" name="${field.name}"${field.required ? html` required aria-required="true"` : ""}${
    errors.length > 0 ? html` aria-invalid="true"` : ""
  }${described !== undefined ? html` aria-describedby="${described}"` : ""}`;
}

function constraintAttributes(field: FormField): SafeHtml {
  return html`${field.minimum !== undefined ? html` min="${field.minimum}"` : ""}${
    field.maximum !== undefined ? html` max="${field.maximum}"` : ""
  }${field.maxLength !== undefined ? html` maxlength="${field.maxLength}"` : ""}${
    field.minLength !== undefined ? html` minlength="${field.minLength}"` : ""
  }`;
}

function renderControl(field: FormField, values: string[], errors: string[]): SafeHtml {
  const attributes = controlAttributes(field, errors);
  const current = values.at(-1) ?? "";
  switch (field.kind) {
    case "textarea":
    case "json":
      return html`<textarea ${attributes}${constraintAttributes(field)}${
        field.kind === "json" ? html` spellcheck="false"` : ""
      }>${current}</textarea>`;
    case "select":
      return html`<select ${attributes}>
<option value="">Choose…</option>
${field.options.map(
  (
    option,
  ) => html`<option value="${option.token}"${option.token === current ? " selected" : ""}>${option.token}</option>
`,
)}</select>`;
    case "checkbox":
      return html`<label class="choice"><input type="checkbox" value="true" ${attributes}${
        values.some((value) => value !== "" && value !== "false") ? " checked" : ""
      }> ${field.label}${field.required ? html`<span class="required" aria-hidden="true">*</span>` : ""}</label>`;
    default: {
      const type = inputTypes[field.kind] ?? "text";
      const step =
        field.kind === "integer"
          ? html` step="1" inputmode="numeric"`
          : field.kind === "number"
            ? html` step="any" inputmode="decimal"`
            : "";
      return html`<input type="${type}" ${attributes}${constraintAttributes(field)}${step} value="${current}">`;
    }
  }
}

function renderMultiselect(field: FormField, values: string[], errors: string[]): SafeHtml {
  const described = describedBy(field, errors.length > 0);
  return html`<fieldset class="field"${described !== undefined ? html` aria-describedby="${described}"` : ""}>
<legend id="${fieldId(field)}">${field.label}${field.required ? html`<span class="required" aria-hidden="true">*</span>` : ""}</legend>
${field.description !== undefined ? html`<span class="hint" id="${fieldId(field)}-hint">${field.description}</span>` : ""}
${field.options.map(
  (
    option,
    index,
  ) => html`<label class="choice"><input type="checkbox" name="${field.name}" id="${fieldId(field)}-${index}" value="${option.token}"${
    values.includes(option.token) ? " checked" : ""
  }> ${option.token}</label>
`,
)}${renderErrors(field, errors)}</fieldset>`;
}

function renderErrors(field: FormField, errors: string[]): HtmlValue {
  if (errors.length === 0) return "";
  return html`<span class="error" id="${fieldId(field)}-error">${errors.map((message, index) => html`${index > 0 ? html`<br>` : ""}${message}`)}</span>`;
}

function renderField(field: FormField, values: string[], errors: string[]): SafeHtml {
  if (field.kind === "multiselect") return renderMultiselect(field, values, errors);
  const hint =
    field.description !== undefined
      ? html`<span class="hint" id="${fieldId(field)}-hint">${field.description}</span>`
      : "";
  if (field.kind === "checkbox") {
    return html`<div class="field">${hint}${renderControl(field, values, errors)}${renderErrors(field, errors)}</div>`;
  }
  return html`<div class="field">
<label for="${fieldId(field)}">${field.label}${field.required ? html`<span class="required" aria-hidden="true">*</span>` : ""}</label>
${hint}${renderControl(field, values, errors)}${field.kind === "datetime" ? html`<span class="hint">Time in UTC.</span>` : ""}${field.kind === "json" ? html`<span class="hint">Enter JSON.</span>` : ""}
${renderErrors(field, errors)}</div>`;
}

function renderSummary(fields: readonly FormField[], errors: ReadonlyMap<string | undefined, string[]>): HtmlValue {
  if (errors.size === 0) return "";
  const items = [...errors].flatMap(([name, messages]) => {
    const field = fields.find((candidate) => candidate.name === name);
    return messages.map((message) =>
      field === undefined
        ? html`<li>${message}</li>`
        : html`<li><a href="#${fieldId(field)}${field.kind === "multiselect" ? "-0" : ""}">${field.label}: ${message}</a></li>`,
    );
  });
  return html`<div class="summary" role="alert" aria-labelledby="error-summary-title">
<h2 id="error-summary-title">Please correct ${items.length === 1 ? "this problem" : "these problems"}</h2>
<ul>${items}</ul>
</div>`;
}

/** The hosted form: one labelled control per schema property, with a hidden CSRF token. */
export function renderFormPage(options: FormPageOptions): string {
  const errors = options.errors ?? new Map<string | undefined, string[]>();
  const anyRequired = options.fields.some((field) => field.required);
  return renderPage({
    title: errors.size > 0 ? `Error: ${options.title}` : options.title,
    body: html`<h1>${options.title}</h1>
${options.description !== undefined ? html`<p class="lead">${options.description}</p>` : ""}
${renderSummary(options.fields, errors)}
<form method="post" action="${options.action}" novalidate>
<input type="hidden" name="${csrfFieldName}" value="${options.csrfToken}">
${anyRequired ? html`<p class="note">Fields marked <span class="required" aria-hidden="true">*</span> are required.</p>` : ""}
${options.fields.map(
  (field) => html`${renderField(field, shownValues(field, options.submitted), errors.get(field.name) ?? [])}
`,
)}<button type="submit">Submit</button>
</form>`,
  });
}

/** Where a successful submission lands (after a 303): says it was received and gives its reference. */
export function renderConfirmationPage(options: {
  title: string;
  reference: string | undefined;
  again: string;
}): string {
  return renderPage({
    title: `Submitted: ${options.title}`,
    body: html`<p class="status done">Submitted</p>
<h1>Thank you</h1>
<p class="lead">Your response to “${options.title}” was received.</p>
${options.reference !== undefined ? html`<p class="note">Reference: <code id="submission-reference">${options.reference}</code></p>` : ""}
<p><a href="${options.again}">Submit another response</a></p>`,
  });
}

/** A refusal shown as a page (hosted forms answer browsers), with the status it is sent with. */
export function renderErrorPage(options: { status: number; title: string; message: string }): string {
  return renderPage({
    title: options.title,
    body: html`<p class="status">Error ${options.status}</p>
<h1>${options.title}</h1>
<p class="lead">${options.message}</p>`,
  });
}
