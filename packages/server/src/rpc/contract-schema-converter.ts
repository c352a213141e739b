import type { JSONSchema } from "@orpc/openapi";
import { ZodToJsonSchemaConverter } from "@orpc/zod/zod4";
import { jsonValueSchema } from "@weft/contract";

/**
 * The one conversion of the contract's zod schemas to JSON Schema, for the OpenAPI document and the
 * MCP tools. The converter unrolls zod's recursive JSON value two levels and ends in empty `{}`
 * branches, so each caller says what to write for it instead.
 */
export function contractSchemaConverter(jsonValue: Exclude<JSONSchema, boolean>): ZodToJsonSchemaConverter {
  return new ZodToJsonSchemaConverter({
    interceptors: [({ schema, next }) => (schema === jsonValueSchema ? [true, jsonValue] : next())],
  });
}
