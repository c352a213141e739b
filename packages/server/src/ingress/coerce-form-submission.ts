import type { FormField } from "./form-fields.ts";

/** What a browser sent for one field name: text values, or a file from a multipart body. */
export type SubmittedValue = string | File;

/** A submitted form: every value under each name, in the order sent. */
export type FormSubmission = ReadonlyMap<string, readonly SubmittedValue[]>;

export interface FieldIssue {
  /** The field the issue belongs to; `undefined` for an issue about the submission as a whole. */
  field: string | undefined;
  message: string;
}

export interface CoercedSubmission {
  value: Record<string, unknown>;
  issues: FieldIssue[];
}

/** Builds a submission from parsed body entries (`URLSearchParams` or `FormData`). */
export function submissionFromEntries(entries: Iterable<[string, SubmittedValue]>): Map<string, SubmittedValue[]> {
  const submission = new Map<string, SubmittedValue[]>();
  for (const [name, value] of entries) {
    const values = submission.get(name);
    if (values === undefined) submission.set(name, [value]);
    else values.push(value);
  }
  return submission;
}

/** The text a field was submitted with, for re-rendering it; files and absent fields give "". */
export function submittedText(submission: FormSubmission, name: string): string {
  const value = submission.get(name)?.at(-1);
  return typeof value === "string" ? value : "";
}

type Coerced = { ok: true; value: unknown } | { ok: false; message: string } | { ok: true; absent: true };

const decimal = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const wholeNumber = /^[+-]?\d+$/;
const localDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
const checkedTokens = new Set(["on", "true", "1", "yes"]);
const uncheckedTokens = new Set(["off", "false", "0", "no", ""]);

function coerceText(field: FormField, text: string): Coerced {
  const trimmed = text.trim();
  switch (field.kind) {
    case "number":
      return decimal.test(trimmed) ? { ok: true, value: Number(trimmed) } : { ok: false, message: "Enter a number." };
    case "integer":
      return wholeNumber.test(trimmed) && Number.isSafeInteger(Number(trimmed))
        ? { ok: true, value: Number(trimmed) }
        : { ok: false, message: "Enter a whole number." };
    case "checkbox":
      if (checkedTokens.has(trimmed.toLowerCase())) return { ok: true, value: true };
      if (uncheckedTokens.has(trimmed.toLowerCase())) return { ok: true, value: false };
      return { ok: false, message: "Check or uncheck this box." };
    case "select": {
      const option = field.options.find((candidate) => candidate.token === text);
      return option ? { ok: true, value: option.value } : { ok: false, message: "Choose one of the listed options." };
    }
    case "datetime":
      // A datetime-local control has no time zone: the value is read as UTC, as the page says.
      return localDateTime.test(trimmed)
        ? { ok: true, value: `${trimmed.length === 16 ? `${trimmed}:00` : trimmed}Z` }
        : { ok: true, value: trimmed };
    case "json":
      try {
        return { ok: true, value: JSON.parse(text) };
      } catch {
        return { ok: false, message: "Enter valid JSON." };
      }
    case "textarea":
      return { ok: true, value: text.replace(/\r\n?/g, "\n") };
    default:
      return { ok: true, value: text };
  }
}

function coerceMultiselect(field: FormField, texts: string[]): Coerced {
  const chosen: unknown[] = [];
  for (const text of texts) {
    const option = field.options.find((candidate) => candidate.token === text);
    if (option === undefined) return { ok: false, message: "Choose only from the listed options." };
    chosen.push(option.value);
  }
  if (chosen.length === 0) return field.required ? { ok: true, value: [] } : { ok: true, absent: true };
  return { ok: true, value: chosen };
}

function coerceField(field: FormField, values: readonly SubmittedValue[]): Coerced {
  if (values.some((value) => typeof value !== "string")) return { ok: false, message: "Files are not accepted here." };
  const texts = values as readonly string[];
  if (field.kind === "multiselect") return coerceMultiselect(field, [...texts]);
  // An unchecked checkbox sends nothing: for a boolean field that means false, not "missing".
  if (field.kind === "checkbox")
    return texts.length === 0 ? { ok: true, value: false } : coerceText(field, texts.at(-1) ?? "");
  const text = texts.at(-1) ?? "";
  if (text.trim() === "")
    return field.required ? { ok: false, message: "This field is required." } : { ok: true, absent: true };
  return coerceText(field, text);
}

/**
 * Turns the text a browser submits into the JSON the form's schema describes: numbers, booleans,
 * enum values, JSON for structured fields. Empty optional fields are left out; names the schema
 * does not list are ignored. Schema rules beyond the type (ranges, patterns…) are left to validation.
 */
export function coerceFormSubmission(fields: readonly FormField[], submission: FormSubmission): CoercedSubmission {
  const value: Record<string, unknown> = {};
  const issues: FieldIssue[] = [];
  for (const field of fields) {
    const coerced = coerceField(field, submission.get(field.name) ?? []);
    if (!coerced.ok) issues.push({ field: field.name, message: coerced.message });
    else if (!("absent" in coerced)) value[field.name] = coerced.value;
  }
  return { value, issues };
}
