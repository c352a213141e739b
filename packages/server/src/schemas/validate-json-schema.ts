import type { JsonSchema } from "@weft/contract";
import { z } from "zod";

export interface SchemaIssue {
  /** Dotted path of the offending value (`address.city`, `items.0`); empty for the value itself. */
  path: string;
  message: string;
}

export type SchemaValidation = { ok: true; value: unknown } | { ok: false; issues: SchemaIssue[] };

/** Converted schemas by their JSON text: manifests are read from the database as fresh objects each time. */
const compiled = new Map<string, z.ZodType>();
const compiledLimit = 500;

/** Throws when the document is not a JSON Schema this platform can validate against. */
export function compileJsonSchema(schema: JsonSchema): z.ZodType {
  const key = JSON.stringify(schema);
  const cached = compiled.get(key);
  if (cached !== undefined) return cached;
  const converted = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  if (compiled.size >= compiledLimit) {
    const oldest = compiled.keys().next();
    if (oldest.done !== true) compiled.delete(oldest.value);
  }
  compiled.set(key, converted);
  return converted;
}

/** Why a document cannot be used as a JSON Schema, or undefined when it can. */
export function jsonSchemaProblem(schema: JsonSchema): string | undefined {
  try {
    compileJsonSchema(schema);
    return undefined;
  } catch (error) {
    return `is not a usable JSON Schema: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * Validates a value against a JSON Schema (a workflow's input schema, a form's schema). The value
 * returned is the parsed one (defaults applied). A schema that cannot be compiled is reported as an
 * issue at the root rather than thrown: manifests are checked with `jsonSchemaProblem` on deploy.
 */
export function validateJsonSchema(schema: JsonSchema, value: unknown): SchemaValidation {
  let validator: z.ZodType;
  try {
    validator = compileJsonSchema(schema);
  } catch (error) {
    return { ok: false, issues: [{ path: "", message: jsonSchemaProblem(schema) ?? String(error) }] };
  }
  const parsed = validator.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    issues: parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message })),
  };
}
