import { os } from "@orpc/server";
import type { Scope } from "@weft/contract";
import type { AuthenticatedContext } from "./context.ts";
import { forbidden } from "./rpc-errors.ts";

/** Refuses the call with FORBIDDEN, naming the scope, unless the credential carries `scope`. */
export function requireScope(scope: Scope) {
  return os.$context<AuthenticatedContext>().middleware(async ({ context, next }) => {
    if (!context.principal.scopes.has(scope)) {
      throw forbidden(`This credential lacks the ${scope} scope.`, { missingScope: scope });
    }
    return next();
  });
}
