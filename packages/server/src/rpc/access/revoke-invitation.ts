import { revokeInvitation as revokeInvitationService } from "../../access/revoke-invitation.ts";
import { rpc } from "../implementer.ts";
import { actorOf } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toInvitation } from "./to-access-records.ts";

/** `access.revokeInvitation`: cancels a pending invitation; its link stops working. */
export const revokeInvitation = rpc.access.revokeInvitation.handler(async ({ input, context }) => {
  const result = await revokeInvitationService(context.platform.database.db, context.platform, {
    invitationId: input.invitationId,
    actor: actorOf(context),
  });
  return toInvitation(valueOrRpcError(result));
});
