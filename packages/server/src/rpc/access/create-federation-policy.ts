import { createFederationPolicy as createFederationPolicyService } from "../../federation/create-federation-policy.ts";
import { rpc } from "../implementer.ts";
import { actorOf } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { requireMemberManager } from "./require-member-manager.ts";
import { toFederationPolicy } from "./to-federation-policy.ts";

/** `access.createFederationPolicy`: owners and admins trust an identity provider's tokens for one project. */
export const createFederationPolicy = rpc.access.createFederationPolicy.handler(async ({ input, context }) => {
  requireMemberManager(context.principal, input.workspaceId, "manage federation policies");
  const result = await createFederationPolicyService(context.platform.database.db, context.platform, {
    ...input,
    actor: actorOf(context),
  });
  return toFederationPolicy(valueOrRpcError(result));
});
