import { deleteFederationPolicy as deleteFederationPolicyService } from "../../federation/delete-federation-policy.ts";
import { rpc } from "../implementer.ts";
import { actorOf } from "../project-access.ts";
import { revokedOrRpcError } from "../revoked-credentials.ts";
import { toFederationPolicy } from "./to-federation-policy.ts";

/** `access.deleteFederationPolicy`: no more exchanges under it, and its credentials are refused at once. */
export const deleteFederationPolicy = rpc.access.deleteFederationPolicy.handler(async ({ input, context }) => {
  const result = await deleteFederationPolicyService(context.platform.database.db, context.platform, {
    policyId: input.policyId,
    actor: actorOf(context),
  });
  const deleted = revokedOrRpcError(context, result);
  return toFederationPolicy(deleted.policy);
});
