import { listFederationPolicies as listFederationPoliciesService } from "../../federation/list-federation-policies.ts";
import { rpc } from "../implementer.ts";
import { toPageEnvelope, toPageRequest } from "../pagination.ts";
import { requireMemberManager } from "./require-member-manager.ts";
import { toFederationPolicy } from "./to-federation-policy.ts";

/** `access.listFederationPolicies`: a workspace's federation policies, for its owners and admins. */
export const listFederationPolicies = rpc.access.listFederationPolicies.handler(async ({ input, context }) => {
  const page = toPageRequest(input.pagination);
  requireMemberManager(context.principal, input.workspaceId, "list federation policies");
  const result = await listFederationPoliciesService(context.platform.database.db, {
    workspaceId: input.workspaceId,
    projectId: input.projectId,
    page,
  });
  return toPageEnvelope(result, toFederationPolicy);
});
