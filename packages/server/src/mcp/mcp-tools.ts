import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AnyContractProcedure } from "@orpc/contract";
import {
  type ContractProcedureEntry,
  contractProcedureEntries,
  type McpExposure,
  type ProcedureMeta,
  type ProcedureName,
} from "@weft/contract";
import type { Principal } from "../rpc/context.ts";
import { contractSchemaConverter } from "../rpc/contract-schema-converter.ts";
import { credentialReaches, holdsWriterRoleSomewhere } from "../rpc/project-access.ts";

/** One MCP tool: the procedure it calls and what `tools/list` shows of it. */
export interface McpTool {
  procedure: ProcedureName;
  path: readonly [string, string];
  /** What `tools/list` needs to know without running the procedure, from the contract's metadata. */
  meta: ProcedureMeta & { mcp: Extract<McpExposure, { tool: true }> };
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

/** The tool name of a procedure: `workflows.getExecution` → `workflows_getExecution`, in the character set every MCP client accepts. */
export function toolNameOf(procedure: ProcedureName): string {
  return procedure.replace(".", "_");
}

function toTool({ name, path, procedure, meta }: ContractProcedureEntry, mcp: McpTool["meta"]["mcp"]): McpTool {
  const outputSchema = objectSchemaOf(procedure, "output");
  return {
    procedure: name,
    path,
    meta: { ...meta, mcp },
    definition: {
      name: toolNameOf(name),
      title: procedure["~orpc"].route.summary,
      description: descriptionOf(procedure),
      inputSchema: objectSchemaOf(procedure, "input") ?? { type: "object" },
      ...(outputSchema === undefined ? {} : { outputSchema }),
      annotations: { readOnlyHint: !meta.mutates, openWorldHint: false },
    },
  };
}

let catalogue: ReadonlyMap<string, McpTool> | undefined;

/** Every tool by its name: the procedures whose metadata makes them one, converted once per process. */
export function mcpTools(): ReadonlyMap<string, McpTool> {
  catalogue ??= new Map(
    contractProcedureEntries().flatMap((entry) => {
      const { mcp } = entry.meta;
      if (!mcp.tool) return [];
      const tool = toTool(entry, mcp);
      return [[tool.definition.name, tool] as const];
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
  const { scope, mutates, mcp } = tool.meta;
  return (
    principal.scopes.has(scope) &&
    credentialReaches(principal, tool.path) &&
    !(mcp.changesWorkspace === true && principal.projectId !== undefined) &&
    (!mutates || mcp.viewerMayChange === true || holdsWriterRoleSomewhere(principal))
  );
}
