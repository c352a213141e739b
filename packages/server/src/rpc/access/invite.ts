import { inviteMember } from "../../access/invite-member.ts";
import { rpc } from "../implementer.ts";
import { requireWorkspaceChange } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toInvitation } from "./to-access-records.ts";

/** `access.invite`: mails an invitation to join the workspace with a role. */
export const invite = rpc.access.invite.handler(async ({ input, context }) => {
  const request = requireWorkspaceChange(context, input);
  const { platform } = context;
  const result = await inviteMember(
    platform.database.db,
    { clock: platform.clock, ids: platform.ids, mailer: platform.mailer, authUrl: platform.config.authUrl },
    request,
  );
  return toInvitation(valueOrRpcError(result));
});
