import { csrfTokenOf, getPage, submitDecision } from "./auth-client.ts";
import { callRpc } from "./rpc-calls.ts";
import type { TestIdentity } from "./test-identities.ts";
import type { TestPlatform } from "./test-platform.ts";

export type TestRole = "owner" | "admin" | "member" | "viewer";

/** The invitation link of the newest mail to `to` in a mail's text. */
export function invitationLinkIn(text: string): string {
  const links = new Set(text.match(/https?:\/\/[^\s"<>]+\/invitations\/accept\?token=ivt_[A-Za-z0-9_-]{43}/g) ?? []);
  if (links.size !== 1) throw new Error(`expected one invitation link in the mail, found ${links.size}`);
  return [...links][0] as string;
}

/** The invitation link last mailed to `to` through the platform's dev outbox. */
export function outboxInvitationLink(weft: TestPlatform, to: string): string {
  const mail = weft.platform.context.mailer.outbox?.list().find((message) => message.to === to);
  if (mail === undefined) throw new Error(`no mail to ${to} in the outbox`);
  return invitationLinkIn(mail.text);
}

/** Opens an invitation link and presses Accept, as a browser would. */
export async function acceptInvitationLink(link: string) {
  const page = await getPage(link);
  return submitDecision(link, { csrf: csrfTokenOf(page.html), decision: "accept" });
}

/** A team workspace created over the API by `owner`; its id. */
export async function createTeamWorkspace(weft: TestPlatform, owner: TestIdentity, name: string): Promise<string> {
  const created = await callRpc(weft.url, "access.createWorkspace", { name }, { token: owner.credential });
  if (created.status !== 200) throw new Error(`createWorkspace answered ${created.status}: ${created.text}`);
  return (created.json as { id: string }).id;
}

/**
 * Brings `member` into the workspace with `role` the way people join: `by` invites over the API and
 * the invitee accepts from the mailed link (the platform's dev outbox).
 */
export async function joinWorkspace(
  weft: TestPlatform,
  input: { workspaceId: string; by: TestIdentity; member: TestIdentity; role: TestRole },
): Promise<void> {
  const invited = await callRpc(
    weft.url,
    "access.invite",
    { workspaceId: input.workspaceId, email: input.member.email, role: input.role },
    { token: input.by.credential },
  );
  if (invited.status !== 200) throw new Error(`invite answered ${invited.status}: ${invited.text}`);
  const accepted = await acceptInvitationLink(outboxInvitationLink(weft, input.member.email));
  if (accepted.status !== 200) throw new Error(`accepting answered ${accepted.status}`);
}
