import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ORPCError } from "@orpc/server";
import type { Principal, RpcInitialContext } from "../rpc/context.ts";
import { callProcedure } from "./call-procedure.ts";
import { resourceContents, resourceReadOf, resourceTemplates } from "./mcp-resources.ts";
import { mcpTools, toolAllowed } from "./mcp-tools.ts";
import { toolError, toolSuccess } from "./tool-results.ts";

/** MCP's "resource not found" (the specification's own code beside JSON-RPC's). */
const resourceNotFound = -32002;

const instructions =
  "Weft runs durable workflows. List projects, read a project's workflows and resources, run a " +
  "workflow, then follow its execution (weft://executions/{id}) and its trace (weft://traces/{projectId}/{traceId}).";

/** An RPC refusal met while reading a resource, as the JSON-RPC error `resources/read` answers with. */
function resourceReadError(error: ORPCError<string, unknown>): McpError {
  const code =
    error.code === "NOT_FOUND"
      ? resourceNotFound
      : error.code === "BAD_REQUEST"
        ? ErrorCode.InvalidParams
        : ErrorCode.InternalError;
  return new McpError(code, `${error.code}: ${error.message}`, {
    code: error.code,
    status: error.status,
    data: error.data,
  });
}

/**
 * The MCP server of one request, for one authenticated principal: built per request so that any
 * process answers any request (no session state); `tools/list` and the catalogue are cheap to rebuild.
 * Every tool and resource goes through the RPC procedures with a context made by `contextOf`.
 */
export function createMcpServer(principal: Principal, contextOf: () => RpcInitialContext): Server {
  const server = new Server(
    { name: "weft", title: "Weft", version: "0.1.0" },
    { capabilities: { tools: { listChanged: false }, resources: { listChanged: false } }, instructions },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...mcpTools().values()].filter((tool) => toolAllowed(tool, principal)).map((tool) => tool.definition),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = mcpTools().get(request.params.name);
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `No tool named ${request.params.name}.`);
    const outcome = await callProcedure(tool.path, request.params.arguments ?? {}, contextOf());
    return outcome.ok ? toolSuccess(tool.procedure, outcome.output) : toolError(outcome.error);
  });

  // Executions and traces are many and short-lived: they are reached by template, not enumerated.
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    const read = resourceReadOf(uri);
    if (read === undefined) {
      throw new McpError(
        resourceNotFound,
        `No resource at ${uri}: use weft://executions/{id} or weft://traces/{projectId}/{traceId}.`,
      );
    }
    const outcome = await callProcedure(read.path, read.input, contextOf());
    if (!outcome.ok) throw resourceReadError(outcome.error);
    return resourceContents(uri, outcome.output);
  });

  return server;
}
