import type { Scope } from "@weft/contract";
import type { AgentClient, ApiSurface, WorkspaceRole } from "../db/schema/index.ts";
import type { PlatformContext } from "../platform-context.ts";
import type { Logger } from "../shared/logger.ts";

/** Who is calling: the account a credential acts for, what it may do, and where. */
export interface Principal {
  accountId: string;
  email: string;
  credentialId: string;
  /** The registration the credential came from (undefined for a credential issued without one). */
  agentId: string | undefined;
  agent: AgentClient | undefined;
  scopes: ReadonlySet<Scope>;
  /** Every workspace the account belongs to, with its role there. */
  workspaces: ReadonlyMap<string, WorkspaceRole>;
  personalWorkspaceId: string | undefined;
  /**
   * The one project a project-scoped (federated) credential sees; `workspaces` then holds only that
   * project's workspace. `project-access.ts` and the authentication middleware enforce it.
   */
  projectId: string | undefined;
}

/** The outcome of reading `Authorization: Bearer …`, decided before the procedure runs. */
export type BearerAuthentication =
  | { status: "authenticated"; principal: Principal }
  | { status: "missing" }
  | { status: "invalid" }
  /** The lookup itself broke (e.g. the database is down): a server error, not the caller's fault. */
  | { status: "failed"; error: unknown };

/** What the HTTP adapter hands to every RPC call. */
export interface RpcInitialContext {
  platform: PlatformContext;
  requestId: string;
  /**
   * The request's logger, made on first call: oRPC copies the context more than once per call, so a
   * getter here would build a child logger for every call rather than for the few that log.
   */
  requestLogger: () => Logger;
  authentication: BearerAuthentication;
  /** Which surface the call came through, for the audit trail. */
  via: ApiSurface;
  /**
   * Filled when a procedure refuses the call for a missing scope, so the 403 can name the scope in
   * its challenge. An object rather than a field: oRPC hands procedures copies of this context.
   */
  refusedScope: { scope?: string };
  /** Filled when a refusal tells the caller when to try again (429, 503), for its `Retry-After`; an object for the same reason. */
  retryAfter: { seconds?: number };
}

/** What procedures see once the authentication middleware has let the call through. */
export interface AuthenticatedContext extends RpcInitialContext {
  principal: Principal;
}
