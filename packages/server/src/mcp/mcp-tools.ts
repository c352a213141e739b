import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { type AnyContractProcedure, isContractProcedure } from "@orpc/contract";
import { contract } from "@weft/contract";
import type { Principal } from "../rpc/context.ts";
import { contractSchemaConverter } from "../rpc/contract-schema-converter.ts";
import { credentialReaches, holdsWriterRoleSomewhere } from "../rpc/project-access.ts";
import { exposedProcedures, type ToolRule, toolNameOf } from "./tool-catalogue.ts";

/** One MCP tool: the procedure it calls and what `tools/list` shows of it. */
export interface McpTool {
  /** `namespace.verb`, the procedure's name in the contract. */
  procedure: string;
  path: readonly [string, string];
  rule: ToolRule;
  definition: Tool;
}

type ObjectSchema = Tool["inputSchema"];

// MCP clients validate arguments and results themselves: a JSON value is any value to them.
const converter = contractSchemaConverter({ description: "Any JSON value." });

function objectSchemaOf(procedure: AnyContractProcedure, strategy: "input" | "output"): ObjectSchema | undefined {
  const schema = procedure["~orpc"][strategy === "input" ? "inputSchema" : "outputSchema"];
  const [, jsonSchema] = converter.convert(schema, { strategy });
  return jsonSchema.type === "object" ? (jsonSchema as ObjectSchema) : undefined;
}

function descriptionOf(procedure: AnyContractProcedure): string {
  const { summary, description } = procedure["~orpc"].route;
  return [summary, description].filter((text) => text !== undefined && text !== "").join("\n\n");
}

function toTool(name: string, procedure: AnyContractProcedure, rule: ToolRule): McpTool {
  const [namespace = "", verb = ""] = name.split(".");
  const outputSchema = objectSchemaOf(procedure, "output");
  return {
    procedure: name,
    path: [namespace, verb],
    rule,
    definition: {
      name: toolNameOf(name),
      title: procedure["~orpc"].route.summary,
      description: descriptionOf(procedure),
      inputSchema: objectSchemaOf(procedure, "input") ?? { type: "object" },
      ...(outputSchema === undefined ? {} : { outputSchema }),
      annotations: { readOnlyHint: !rule.changes, openWorldHint: false },
    },
  };
}

function contractProcedure(namespace: string, verb: string): AnyContractProcedure {
  const procedure: unknown = (contract as Record<string, Record<string, unknown> | undefined>)[namespace]?.[verb];
  if (!isContractProcedure(procedure))
    throw new Error(`the MCP tool catalogue names ${namespace}.${verb}, which the contract lacks`);
  return procedure;
}

let catalogue: ReadonlyMap<string, McpTool> | undefined;

/** Every tool by its name, converted from the contract once per process. */
export function mcpTools(): ReadonlyMap<string, McpTool> {
  catalogue ??= new Map(
    Object.entries(exposedProcedures).map(([name, rule]) => {
      const [namespace = "", verb = ""] = name.split(".");
      const tool = toTool(name, contractProcedure(namespace, verb), rule);
      return [tool.definition.name, tool];
    }),
  );
  return catalogue;
}

/**
 * Whether `tools/list` shows the tool to this credential: it carries the scope, may reach the
 * namespace (and, scoped to one project, is not asked to change a workspace), and for a change
 * holds a role that may change something. Calling a tool left out
 * still goes to the procedure, which refuses it for the same reasons.
 */
export function toolAllowed(tool: McpTool, principal: Principal): boolean {
  return (
    principal.scopes.has(tool.rule.scope) &&
    credentialReaches(principal, tool.path) &&
    !(tool.rule.changesWorkspace === true && principal.projectId !== undefined) &&
    (!tool.rule.needsWriterRole || holdsWriterRoleSomewhere(principal))
  );
}
