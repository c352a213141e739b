import type { JsonSchema } from "@weft/contract";

/**
 * What is wrong with a workflow input typed as JSON text: not JSON, or not what the workflow's
 * JSON Schema asks for; empty when it may be sent. The server checks the same schema again.
 */
export async function inputProblems(text: string, schema: JsonSchema | undefined): Promise<string[]> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return [`Not JSON: ${error instanceof Error ? error.message : String(error)}`];
  }
  if (schema === undefined) return [];
  // An interpreter rather than a compiler: Studio's CSP forbids the eval that Ajv compiles with.
  const { Validator } = await import("@cfworker/json-schema");
  const result = new Validator(schema, "2020-12", false).validate(value);
  if (result.valid) return [];
  return result.errors
    .filter((unit) => !["properties", "allOf", "$ref"].includes(unit.keyword))
    .map(
      (unit) =>
        `${unit.instanceLocation === "#" ? "input" : unit.instanceLocation.replace(/^#/, "input")}: ${unit.error}`,
    );
}

/** A starting input for the editor: an object with the schema's required properties, typed blank. */
export function exampleInput(schema: JsonSchema | undefined): string {
  const properties = schema?.properties;
  if (schema === undefined || typeof properties !== "object" || properties === null || Array.isArray(properties)) {
    return "{}";
  }
  const example: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    const type =
      typeof property === "object" && property !== null && !Array.isArray(property) ? property.type : undefined;
    example[name] =
      type === "number" || type === "integer"
        ? 0
        : type === "boolean"
          ? false
          : type === "array"
            ? []
            : type === "object"
              ? {}
              : "";
  }
  return JSON.stringify(example, null, 2);
}
