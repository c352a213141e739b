import fc from "fast-check";

/** The subset of JSON Schema that `z.toJSONSchema` writes for the contract's inputs. */
export interface JsonSchema {
  type?: "object" | "array" | "string" | "integer" | "number" | "boolean" | "null";
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  pattern?: string;
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  default?: unknown;
  description?: string;
  $schema?: string;
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
}

/** Keywords that only describe or that the keywords above already cover; anything else cannot be generated. */
const understoodKeywords = new Set<string>([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "propertyNames",
  "items",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "pattern",
  "format",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "default",
  "description",
  "$schema",
  "$ref",
  "$defs",
]);

/** How many `$ref`s deep a value goes before a recursive definition stops at any small JSON value. */
const refDepthLimit = 6;

export interface SchemaArbitraryOptions {
  /**
   * Strings that name real things (ids, names): a string field whose pattern one of them matches
   * draws it half the time, so inputs reach past the lookup into the code behind it.
   */
  known?: readonly string[];
  /** Arbitraries for the values at these paths (`manifest`, `pagination.after`), used instead of the schema's. */
  overrides?: Readonly<Record<string, fc.Arbitrary<unknown>>>;
}

/** Why a schema cannot be turned into an arbitrary: the fuzz walk fails on it rather than skip the procedure. */
export class UngeneratableSchemaError extends Error {}

/**
 * An arbitrary of values that satisfy `schema`: the valid half of a fuzz input, which mutations
 * then break. Throws `UngeneratableSchemaError` for a keyword it does not understand.
 */
export function arbitraryOfJsonSchema(schema: JsonSchema, options: SchemaArbitraryOptions = {}): fc.Arbitrary<unknown> {
  return arbitraryAt(schema, "", { ...options, definitions: schema.$defs ?? {}, refDepth: 0 });
}

interface WalkState extends SchemaArbitraryOptions {
  definitions: Record<string, JsonSchema>;
  refDepth: number;
}

function resolved(schema: JsonSchema, path: string, options: WalkState): fc.Arbitrary<unknown> {
  const name = schema.$ref?.replace(/^#\/\$defs\//, "") ?? "";
  const definition = options.definitions[name];
  if (definition === undefined)
    throw new UngeneratableSchemaError(`${path || "(root)"}: cannot resolve ${schema.$ref}`);
  if (options.refDepth >= refDepthLimit) return fc.jsonValue({ maxDepth: 1 });
  return arbitraryAt(definition, path, { ...options, refDepth: options.refDepth + 1 });
}

function arbitraryAt(schema: JsonSchema, path: string, options: WalkState): fc.Arbitrary<unknown> {
  const override = options.overrides?.[path];
  if (override !== undefined) return override;
  const unknownKeywords = Object.keys(schema).filter((keyword) => !understoodKeywords.has(keyword));
  if (unknownKeywords.length > 0) {
    throw new UngeneratableSchemaError(`${path || "(root)"}: cannot generate ${unknownKeywords.join(", ")}`);
  }
  if (schema.$ref !== undefined) return resolved(schema, path, options);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives !== undefined) return fc.oneof(...alternatives.map((each) => arbitraryAt(each, path, options)));
  switch (schema.type) {
    case undefined:
      return fc.jsonValue({ maxDepth: 3 });
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return fc.integer({ min: lowerBound(schema, 1), max: upperBound(schema, 1) });
    case "number":
      return fc.double({ min: lowerBound(schema, 0), max: upperBound(schema, 0), noNaN: true });
    case "string":
      return stringArbitrary(schema, options);
    case "array":
      return fc.array(arbitraryAt(schema.items ?? {}, `${path}[]`, options), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 5, 5),
      });
    case "object":
      return objectArbitrary(schema, path, options);
  }
}

function lowerBound(schema: JsonSchema, step: number): number {
  if (schema.exclusiveMinimum !== undefined) return schema.exclusiveMinimum + step;
  return schema.minimum ?? Number.MIN_SAFE_INTEGER;
}

function upperBound(schema: JsonSchema, step: number): number {
  if (schema.exclusiveMaximum !== undefined) return schema.exclusiveMaximum - step;
  return schema.maximum ?? Number.MAX_SAFE_INTEGER;
}

function stringArbitrary(schema: JsonSchema, options: WalkState): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength ?? Math.max(minLength, 80);
  const generated =
    schema.pattern === undefined
      ? fc.string({ unit: "grapheme", minLength, maxLength })
      : fc
          .stringMatching(new RegExp(schema.pattern))
          .filter((value) => value.length >= minLength && value.length <= maxLength);
  const pattern = schema.pattern === undefined ? undefined : new RegExp(schema.pattern);
  const known = (options.known ?? []).filter((value) => pattern?.test(value) ?? false);
  return known.length === 0 ? generated : fc.oneof(generated, fc.constantFrom(...known));
}

function objectArbitrary(schema: JsonSchema, path: string, options: WalkState): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const members = Object.fromEntries(
    Object.entries(properties).map(([key, value]) => [
      key,
      arbitraryAt(value, path === "" ? key : `${path}.${key}`, options),
    ]),
  );
  const required = schema.required ?? [];
  const known = fc.record(members, { requiredKeys: required.filter((key) => key in properties) });
  if (typeof schema.additionalProperties !== "object") return known;
  const others = fc.dictionary(
    stringArbitrary(schema.propertyNames ?? {}, options),
    arbitraryAt(schema.additionalProperties, `${path}{}`, options),
    { maxKeys: 4 },
  );
  return fc.tuple(others, known).map(([extra, named]) => ({ ...extra, ...(named as object) }));
}
