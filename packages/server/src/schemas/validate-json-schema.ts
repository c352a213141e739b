import type { JsonSchema } from "@weft/contract";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import formatsPlugin from "ajv-formats";
import { createExpiringMap } from "../shared/expiring-map.ts";
import { compileLinearPattern } from "./linear-regexp.ts";
import { findSchemaHazards, type SchemaPath } from "./schema-hazards.ts";

export interface SchemaIssue {
  /** Dotted path of the offending value (`address.city`, `items.0`); empty for the value itself. */
  path: string;
  message: string;
}

export type SchemaValidation = { ok: true; value: unknown } | { ok: false; issues: SchemaIssue[] };

/** Why a schema cannot be used: `path` leads to the keyword at fault inside the schema (empty: the schema as a whole). */
export interface SchemaProblem {
  path: SchemaPath;
  message: string;
}

/** Every `pattern` and `patternProperties` key runs on RE2 (see `linear-regexp.ts`), never on JavaScript's RegExp. */
const linearRegExp = Object.assign((pattern: string) => compileLinearPattern(pattern), { code: "re2js" });

const ajvOptions = {
  allErrors: true,
  useDefaults: true,
  // Manifests carry annotations of their own (`x-…`, UI hints); unknown keywords are ignored, as JSON Schema says.
  strict: false,
  logger: false,
  code: { regExp: linearRegExp },
} as const;

/** Checks schemas against the 2020-12 meta-schema; it compiles nothing else, so it keeps nothing else. */
const metaSchemaChecker = new Ajv2020(ajvOptions);

/**
 * A fresh Ajv for each schema compiled: an instance keeps every schema, pattern and function it
 * ever compiled in its scope, which `removeSchema` does not clear (4 000 distinct schemas held 70 MB).
 * With one instance per schema, a validator dropped from the cache below takes its instance along.
 * The meta-schema is checked by `metaSchemaChecker` instead, which spares compiling it each time.
 */
function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ ...ajvOptions, meta: false, validateSchema: false });
  // A CommonJS module: its default export is the module object, whose `default` is the plugin.
  formatsPlugin.default(ajv);
  return ajv;
}

/** Compiled validators by their schema's JSON text: manifests are read from the database as fresh objects each time. */
const compiled = createExpiringMap<string, ValidateFunction>(500);

/** A `$schema` naming another draft is read as 2020-12, the draft this platform validates with. */
function withoutDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/** Throws when the document is not a JSON Schema this platform can validate against. */
export function compileJsonSchema(schema: JsonSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  const cached = compiled.get(key, 0);
  if (cached !== undefined) return cached;
  const hazard = findSchemaHazards(schema)[0];
  if (hazard !== undefined) throw new Error(hazard.message);
  const document = withoutDialect(schema);
  if (!metaSchemaChecker.validateSchema(document)) {
    throw new Error(`schema is invalid: ${metaSchemaChecker.errorsText(metaSchemaChecker.errors)}`);
  }
  const validator = createAjv().compile(document);
  compiled.set(key, validator, Number.POSITIVE_INFINITY);
  return validator;
}

/** Why a document cannot be used as a JSON Schema, or undefined when it can. */
export function jsonSchemaProblem(schema: JsonSchema): SchemaProblem | undefined {
  const hazard = findSchemaHazards(schema)[0];
  if (hazard !== undefined) return hazard;
  try {
    compileJsonSchema(schema);
    return undefined;
  } catch (error) {
    return {
      path: [],
      message: `is not a usable JSON Schema: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

function issuePath(error: ErrorObject): string {
  const segments = error.instancePath
    .split("/")
    .slice(1)
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"));
  const named = error.params as { missingProperty?: string; additionalProperty?: string };
  if (error.keyword === "required" && named.missingProperty !== undefined) segments.push(named.missingProperty);
  if (error.keyword === "additionalProperties" && named.additionalProperty !== undefined) {
    segments.push(named.additionalProperty);
  }
  return segments.join(".");
}

/**
 * Validates a value against a JSON Schema (a workflow's input schema, a form's schema). The value
 * returned is a copy with defaults applied. A schema that cannot be compiled is reported as an
 * issue at the root rather than thrown: manifests are checked with `jsonSchemaProblem` on deploy.
 */
export function validateJsonSchema(schema: JsonSchema, value: unknown): SchemaValidation {
  let validator: ValidateFunction;
  try {
    validator = compileJsonSchema(schema);
  } catch (error) {
    return {
      ok: false,
      issues: [{ path: "", message: jsonSchemaProblem(schema)?.message ?? String(error) }],
    };
  }
  const copy = structuredClone(value);
  if (validator(copy)) return { ok: true, value: copy };
  return {
    ok: false,
    issues: (validator.errors ?? []).map((error) => ({
      path: issuePath(error),
      message: error.message ?? "is invalid",
    })),
  };
}
