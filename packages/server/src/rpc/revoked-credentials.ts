import type { ServiceResult } from "../shared/service-result.ts";
import type { AuthenticatedContext } from "./context.ts";
import { valueOrRpcError } from "./service-failure.ts";

/**
 * The value of a service result that revoked credentials, once this process has published them, so
 * its cached principals drop them before the answer is sent; a failure is thrown as its RPC error.
 */
export function revokedOrRpcError<T extends { revokedCredentialIds: readonly string[] }>(
  context: AuthenticatedContext,
  result: ServiceResult<T>,
): T {
  const revoked = valueOrRpcError(result);
  context.platform.credentialRevocations.publish(revoked.revokedCredentialIds);
  return revoked;
}
