import { oc } from "@orpc/contract";
import { rpcErrors } from "./errors.ts";
import type { Scope } from "./scopes.ts";

/**
 * Whether MCP offers a procedure as a tool. One it does not is kept off for a stated reason, so
 * each new procedure is a decision, not an omission.
 */
export type McpExposure =
  | {
      tool: true;
      /** A change a viewer may make too (revoking one's own agent): shown without a writer role. */
      viewerMayChange?: true;
      /** Changes a workspace rather than a project: never shown to a credential scoped to one project. */
      changesWorkspace?: true;
    }
  | { tool: false; reason: string };

/** What the server and MCP know of a procedure before running it. */
export interface ProcedureMeta {
  /** The one scope a credential needs to call it: the server refuses it FORBIDDEN without. */
  scope: Scope;
  /** Whether a call changes something (MCP marks the others read-only; a change needs a write scope). */
  mutates: boolean;
  mcp: McpExposure;
}

/**
 * Every procedure of every namespace starts here: it declares the whole error catalogue, and its
 * metadata, which a procedure cannot be declared without.
 */
export function procedure(meta: ProcedureMeta) {
  return oc.errors(rpcErrors).$meta<ProcedureMeta>(meta);
}
