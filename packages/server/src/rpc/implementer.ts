import { implement, os } from "@orpc/server";
import { contract } from "@weft/contract";
import type { AuthenticatedContext, RpcInitialContext } from "./context.ts";
import { requireCredentialReach } from "./project-access.ts";
import { unauthorized } from "./rpc-errors.ts";

/**
 * Lets a call through only with a valid bearer credential that may reach the procedure, and puts its
 * principal on the context.
 */
const requireAuthentication = os.$context<RpcInitialContext>().middleware(async ({ context, next, path }) => {
  const { authentication } = context;
  if (authentication.status === "missing") {
    throw unauthorized("A bearer credential is required: send Authorization: Bearer <credential>.");
  }
  if (authentication.status === "invalid") {
    throw unauthorized("The bearer credential is unknown, expired or revoked; register again for a new one.");
  }
  if (authentication.status === "failed") throw authentication.error;
  requireCredentialReach(authentication.principal, path);
  return next({ context: { principal: authentication.principal } satisfies Partial<AuthenticatedContext> });
});

/**
 * The contract's implementer with authentication applied: every procedure is built from it, e.g.
 * `rpc.projects.list.use(requireScope("projects:read")).handler(...)`.
 */
export const rpc = implement(contract).$context<RpcInitialContext>().use(requireAuthentication);
