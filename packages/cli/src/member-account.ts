import type { WeftClient } from "@weft/client";
import { accessPageLimit } from "@weft/contract";
import { allPages } from "./all-pages.ts";
import { CliError } from "./errors.ts";

/**
 * The account id of a workspace member named by account id or by email. An email is looked up in
 * the workspace's members as the platform stores addresses: trimmed and in lower case.
 */
export async function memberAccountId(client: WeftClient, workspaceId: string, member: string): Promise<string> {
  if (!member.includes("@")) return member;
  const members = await allPages((after) =>
    client.access.listMembers({
      workspaceId,
      pagination: { first: accessPageLimit, ...(after === undefined ? {} : { after }) },
    }),
  );
  const email = member.trim().toLowerCase();
  const found = members.find((candidate) => candidate.email === email);
  if (found !== undefined) return found.accountId;
  throw new CliError(`${member} is not a member of workspace ${workspaceId}`, {
    code: "not_found",
    fix: `\`weft members list --workspace ${workspaceId}\` shows its members with their emails and account ids`,
  });
}
