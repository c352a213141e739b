import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { allScopes, type Scope } from "@weft/contract";
import type { Principal } from "../rpc/context.ts";
import { mcpTools } from "./mcp-tools.ts";

/** A request that calls tools whose scope the credential lacks, and what would let it through. */
export interface InsufficientScope {
  /** The scopes to authorize again for: the credential's own and the missing ones, in the contract's order. */
  scopes: Scope[];
  /** Which tools lack which scope, and what to do, for the body's `error_description`. */
  description: string;
}

/** The names of the tools a JSON-RPC body calls, alone or in a batch. */
function calledTools(body: unknown): string[] {
  return (Array.isArray(body) ? body : [body]).flatMap((message) => {
    const call = CallToolRequestSchema.safeParse(message);
    return call.success ? [call.data.params.name] : [];
  });
}

/**
 * Whether a JSON-RPC body calls a tool whose procedure needs a scope the credential lacks, decided
 * from the tool's metadata before anything runs: the request is then refused as a whole with 403
 * `insufficient_scope`, which an MCP client answers by authorizing again for more (step-up). A
 * credential that holds the scope but not the role or project still reaches the procedure, whose
 * refusal is a tool error; an unknown tool is left to the server's own error.
 */
export function insufficientScopeOf(body: unknown, principal: Principal): InsufficientScope | undefined {
  const refused = calledTools(body).flatMap((name) => {
    const scope = mcpTools().get(name)?.meta.scope;
    return scope === undefined || principal.scopes.has(scope) ? [] : [{ name, scope }];
  });
  if (refused.length === 0) return undefined;
  const needed = new Set<Scope>([...principal.scopes, ...refused.map(({ scope }) => scope)]);
  const scopes = allScopes.filter((scope) => needed.has(scope));
  const lacking = [...new Set(refused.map(({ name, scope }) => `${scope} (${name})`))].join(", ");
  return {
    scopes,
    description: `This credential lacks the scope of the tool it calls: ${lacking}. Authorize again for "${scopes.join(" ")}".`,
  };
}
