import {
  acceptInvitationLink,
  callRpc,
  createTeamWorkspace,
  createTestIdentity,
  getPage,
  invitationLinkIn,
  mailingTestPlatform,
  submitDecision,
  type TestIdentity,
} from "@weft/testing";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { invitationLifetimeMs } from "../src/access/invitation-record.ts";
import { accounts, auditEvents, invitations, memberships } from "../src/db/schema/index.ts";

const platform = mailingTestPlatform();
let olivia: TestIdentity;
let workspaceId: string;

const invite = (email: string, role = "member") =>
  callRpc(platform.weft.url, "access.invite", { workspaceId, email, role }, { token: olivia.credential });

function mailedLinkTo(to: string): string {
  const mail = platform.smtp.received.findLast((message) => message.to.includes(to));
  if (mail === undefined) throw new Error(`no mail to ${to}`);
  return invitationLinkIn(mail.raw);
}

async function state() {
  const db = platform.weft.database.db;
  return {
    accounts: await db.select().from(accounts).orderBy(accounts.id),
    memberships: await db.select().from(memberships).orderBy(memberships.accountId),
    invitations: await db.select().from(invitations).orderBy(invitations.id),
    audit: await db.select({ id: auditEvents.id }).from(auditEvents).orderBy(auditEvents.id),
  };
}

beforeAll(async () => {
  olivia = await createTestIdentity(platform.weft, "olivia@example.com");
  workspaceId = await createTeamWorkspace(platform.weft, olivia, "Acme");
});

describe("invitations", () => {
  it("mails an accept link; the page shows workspace, inviter and role and changes nothing", async () => {
    const invited = await invite("newcomer@example.com", "admin");
    expect(invited.status).toBe(200);
    expect(invited.json).toMatchObject({ email: "newcomer@example.com", role: "admin", status: "pending" });
    const link = mailedLinkTo("newcomer@example.com");
    const before = await state();
    const page = await getPage(link);
    expect(page.status).toBe(200);
    expect(page.html).toContain("Acme");
    expect(page.html).toContain("olivia@example.com");
    expect(page.html).toContain("admin");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(await state()).toEqual(before);
  });

  it("refuses Accept without a valid CSRF token and changes nothing", async () => {
    const link = mailedLinkTo("newcomer@example.com");
    const before = await state();
    const forged = await submitDecision(link, { csrf: "1.forged", decision: "accept" });
    expect(forged.status).toBe(403);
    expect(await state()).toEqual(before);
  });

  it("refuses an Accept whose form cannot be read (a multipart body without its boundary) and changes nothing", async () => {
    const link = mailedLinkTo("newcomer@example.com");
    const before = await state();
    const unreadable = await fetch(link, {
      method: "POST",
      headers: { "content-type": "multipart/form-data" },
      body: "csrf=x&decision=accept",
    });
    expect(unreadable.status).toBe(400);
    expect(await unreadable.text()).toContain("This form could not be read");
    expect(await state()).toEqual(before);
  });

  it("Accept creates the account of a new email and makes it a member with the role", async () => {
    const accepted = await acceptInvitationLink(mailedLinkTo("newcomer@example.com"));
    expect(accepted.status).toBe(200);
    expect(accepted.html).toContain("Acme");
    const [account] = await platform.weft.database.db
      .select()
      .from(accounts)
      .where(eq(accounts.email, "newcomer@example.com"));
    expect(account).toBeDefined();
    const members = await callRpc(
      platform.weft.url,
      "access.listMembers",
      { workspaceId },
      { token: olivia.credential },
    );
    expect((members.json as { results: unknown[] }).results).toContainEqual(
      expect.objectContaining({ accountId: account?.id, email: "newcomer@example.com", role: "admin" }),
    );
    const again = await getPage(mailedLinkTo("newcomer@example.com"));
    expect(again.status).toBe(410);
  });

  it("refuses an invitation to an existing member (CONFLICT) and sends nothing", async () => {
    const sent = platform.smtp.received.length;
    const refused = await invite("newcomer@example.com");
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ message: "newcomer@example.com is already a member of this workspace." });
    expect(platform.smtp.received.length).toBe(sent);
  });

  it("refuses a second pending invitation to the same email (CONFLICT)", async () => {
    expect((await invite("twice@example.com")).status).toBe(200);
    const before = await state();
    const second = await invite("Twice@Example.com");
    expect(second.status).toBe(409);
    expect(second.json).toMatchObject({ code: "CONFLICT" });
    expect(await state()).toEqual(before);
  });

  it("lists invitations and revokes one; its link then does nothing", async () => {
    const listed = await callRpc(
      platform.weft.url,
      "access.listInvitations",
      { workspaceId },
      { token: olivia.credential },
    );
    const results = (listed.json as { results: { id: string; email: string; status: string }[] }).results;
    expect(results.map(({ email, status }) => [email, status])).toEqual([
      ["newcomer@example.com", "accepted"],
      ["twice@example.com", "pending"],
    ]);
    const pending = results.find((invitation) => invitation.status === "pending");
    const revoked = await callRpc(
      platform.weft.url,
      "access.revokeInvitation",
      { invitationId: pending?.id },
      { token: olivia.credential },
    );
    expect(revoked.status).toBe(200);
    expect(revoked.json).toMatchObject({ status: "revoked" });
    const link = mailedLinkTo("twice@example.com");
    expect((await getPage(link)).status).toBe(410);
    const before = await state();
    expect((await acceptInvitationLink(link).catch(() => ({ status: 0 }))).status).not.toBe(200);
    expect(await state()).toEqual(before);
    const again = await callRpc(
      platform.weft.url,
      "access.revokeInvitation",
      { invitationId: pending?.id },
      { token: olivia.credential },
    );
    expect(again.status).toBe(409);
  });

  it("expires after 7 days: the link no longer joins, and a new invitation may be sent", async () => {
    expect((await invite("late@example.com", "viewer")).status).toBe(200);
    const link = mailedLinkTo("late@example.com");
    platform.weft.clock.advance(invitationLifetimeMs - 1);
    const page = await getPage(link);
    expect(page.status).toBe(200);
    platform.weft.clock.advance(1);
    const before = await state();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.html)?.[1] ?? "";
    const accepted = await submitDecision(link, { csrf, decision: "accept" });
    expect(accepted.status).toBe(410);
    expect(accepted.html).toContain("expired");
    expect(await state()).toEqual(before);
    expect((await getPage(link)).status).toBe(410);
    expect((await invite("late@example.com", "viewer")).status).toBe(200);
  });

  it("an unknown link is 404", async () => {
    expect((await getPage(`${platform.weft.url}/invitations/accept?token=ivt_${"x".repeat(43)}`)).status).toBe(404);
    expect((await getPage(`${platform.weft.url}/invitations/accept?token=nope`)).status).toBe(404);
  });

  it("records the invitation and the join, and never the link's secret", async () => {
    const events = await platform.weft.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.workspaceId, workspaceId));
    const invited = events.find((event) => event.action === "member.invited");
    expect(invited).toMatchObject({ actorAccountId: olivia.accountId, actorCredentialId: olivia.credentialId });
    expect(events.find((event) => event.action === "member.joined")).toMatchObject({ targetType: "account" });
    expect(JSON.stringify(events)).not.toMatch(/ivt_/);
  });
});
