import type { JsonSchema } from "@weft/contract";

/**
 * How one property of a form's JSON Schema is shown and read back. Hosted forms are flat: each
 * top-level property becomes one field; a property whose shape has no natural HTML control (an
 * object, an array of free values) becomes a `json` textarea whose text is parsed as JSON.
 */
export type FieldKind =
  | "text"
  | "email"
  | "url"
  | "textarea"
  | "number"
  | "integer"
  | "checkbox"
  | "select"
  | "multiselect"
  | "date"
  | "datetime"
  | "time"
  | "json";

export type EnumValue = string | number | boolean | null;

export interface FieldOption {
  value: EnumValue;
  /** What the browser submits for this option: the value as text. */
  token: string;
}

export interface FormField {
  name: string;
  label: string;
  description: string | undefined;
  required: boolean;
  kind: FieldKind;
  options: FieldOption[];
  minimum: number | undefined;
  maximum: number | undefined;
  minLength: number | undefined;
  maxLength: number | undefined;
  pattern: string | undefined;
  defaultValue: unknown;
}

/** Strings allowed longer than this are edited in a textarea rather than a one-line input. */
export const textareaThreshold = 200;

type SchemaObject = Record<string, unknown>;

function isObject(value: unknown): value is SchemaObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `first_name` → `First name`: the label of a property that has no `title`. */
export function humanize(name: string): string {
  const spaced = name
    .replace(/[_-]+/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .trim()
    .toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** The property's type, ignoring `null` in a union such as `["string", "null"]`. */
function primaryType(schema: SchemaObject): string | undefined {
  const type = schema.type;
  if (typeof type === "string") return type;
  if (Array.isArray(type)) return type.find((entry): entry is string => typeof entry === "string" && entry !== "null");
  return undefined;
}

function enumOptions(schema: SchemaObject): FieldOption[] | undefined {
  const values = Array.isArray(schema.enum) ? schema.enum : "const" in schema ? [schema.const] : undefined;
  if (values === undefined) return undefined;
  const options = values.filter(
    (value): value is EnumValue =>
      value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean",
  );
  return options.map((value) => ({ value, token: String(value) }));
}

function stringKind(schema: SchemaObject): FieldKind {
  switch (schema.format) {
    case "email":
      return "email";
    case "uri":
    case "url":
      return "url";
    case "date":
      return "date";
    case "date-time":
      return "datetime";
    case "time":
      return "time";
  }
  const maxLength = typeof schema.maxLength === "number" ? schema.maxLength : undefined;
  return maxLength !== undefined && maxLength > textareaThreshold ? "textarea" : "text";
}

function fieldKind(schema: SchemaObject): { kind: FieldKind; options: FieldOption[] } {
  const options = enumOptions(schema);
  if (options !== undefined) return { kind: "select", options };
  const type = primaryType(schema);
  if (type === "array" && isObject(schema.items)) {
    const itemOptions = enumOptions(schema.items);
    if (itemOptions !== undefined) return { kind: "multiselect", options: itemOptions };
  }
  switch (type) {
    case "string":
      return { kind: stringKind(schema), options: [] };
    case "number":
      return { kind: "number", options: [] };
    case "integer":
      return { kind: "integer", options: [] };
    case "boolean":
      return { kind: "checkbox", options: [] };
    default:
      return { kind: "json", options: [] };
  }
}

function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** The fields of a form, in the order its schema lists its properties. */
export function formFieldsFromSchema(schema: JsonSchema): FormField[] {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === "string") : [],
  );
  return Object.entries(properties).map(([name, raw]) => {
    const property = isObject(raw) ? raw : {};
    const { kind, options } = fieldKind(property);
    return {
      name,
      label: typeof property.title === "string" && property.title !== "" ? property.title : humanize(name),
      description: typeof property.description === "string" ? property.description : undefined,
      required: required.has(name),
      kind,
      options,
      minimum: numberOrUndefined(property.minimum),
      maximum: numberOrUndefined(property.maximum),
      minLength: numberOrUndefined(property.minLength),
      maxLength: numberOrUndefined(property.maxLength),
      pattern: typeof property.pattern === "string" ? property.pattern : undefined,
      defaultValue: property.default,
    };
  });
}
