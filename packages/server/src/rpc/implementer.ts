import { implement, os } from "@orpc/server";
import { contract } from "@weft/contract";
import type { AuthenticatedContext, RpcInitialContext } from "./context.ts";
import { requireCredentialReach } from "./project-access.ts";
import { forbidden, unauthorized } from "./rpc-errors.ts";

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
 * The contract's implementer with authentication and the scope each procedure declares in its
 * metadata applied: every procedure is built from it, e.g. `rpc.projects.list.handler(...)`.
 *
 * The input is validated between the two (the validation index counts this implementer's
 * middlewares from -1): an invalid input answers BAD_REQUEST whatever scopes the credential holds.
 */
export const rpc = implement(contract, { initialInputValidationIndex: -1 })
  .$context<RpcInitialContext>()
  .use(requireAuthentication)
  .use(async ({ context, procedure, next }) => {
    const { scope } = procedure["~orpc"].meta;
    if (!context.principal.scopes.has(scope)) {
      throw forbidden(`This credential lacks the ${scope} scope.`, { missingScope: scope });
    }
    return next();
  });
