import {
  acceptInvitationLink,
  callRpc,
  checkStudioPage,
  collectPageProblems,
  createTestIdentity,
  hasChromium,
  invitationLinkIn,
  signedInStudioContext,
  studioInBrowser,
} from "@weft/testing";
import type { BrowserContext, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * Teams in Studio, in Chromium, for a person who has just signed up: a team workspace of their own,
 * a member invited by email (the mail goes out over real SMTP), their role changed and the member
 * removed, by email, with the API's refusals shown where the change was asked.
 */

const owner = "lin@example.com";
const invitee = "sam@example.com";

describe.skipIf(!hasChromium)("Teams in Studio", () => {
  const platform = studioInBrowser();
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    // A new address: signing in to Studio is signing up.
    context = await signedInStudioContext(platform, owner);
    page = await context.newPage();
    collectPageProblems(page, problems);
  }, 120_000);

  it("creates a team workspace, invites a member by email, changes their role and removes them", {
    timeout: 180_000,
  }, async () => {
    await page.goto(`${platform.weft.url}/studio/members`);
    await page.getByRole("heading", { name: "Members", level: 1 }).waitFor();
    await page.getByText(/^A personal workspace has no other members/).waitFor();
    await checkStudioPage(page, "members-personal", { overflow: false });

    const create = page.getByRole("form", { name: "Create a team workspace" });
    await create.getByLabel("Team name").fill("Kitchen");
    await create.getByRole("button", { name: "Create team workspace" }).click();
    // The picker moves to the new workspace, where the person is owner.
    await page.getByRole("option", { name: "Kitchen · owner", selected: true }).waitFor({ state: "attached" });
    await page.getByLabel("Email to invite").waitFor();
    const mine = page.getByRole("row", { name: new RegExp(owner) });
    expect(await mine.getByLabel(`Role of ${owner}`).inputValue()).toBe("owner");

    // The last owner cannot step down: the API's refusal shows beside the role, which stays.
    await mine.getByLabel(`Role of ${owner}`).selectOption("admin");
    await mine.getByRole("alert").waitFor();
    expect(await mine.getByRole("alert").textContent()).toContain("last owner");
    expect(await mine.getByLabel(`Role of ${owner}`).inputValue()).toBe("owner");

    await page.getByLabel("Email to invite").fill(invitee);
    await page.getByLabel("Role", { exact: true }).selectOption("viewer");
    await page.getByRole("button", { name: "Invite" }).click();
    await page.getByRole("button", { name: `Cancel invitation of ${invitee}` }).waitFor();
    await expect
      .poll(() => platform.smtp.received.some((mail) => mail.to.includes(invitee)), { timeout: 30_000 })
      .toBe(true);
    const invitation = platform.smtp.received.find((mail) => mail.to.includes(invitee));
    expect((await acceptInvitationLink(invitationLinkIn(invitation?.raw ?? ""))).status).toBe(200);

    await page.reload();
    const row = page.getByRole("row", { name: new RegExp(invitee) });
    await row.waitFor();
    expect(await row.getByLabel(`Role of ${invitee}`).inputValue()).toBe("viewer");
    await checkStudioPage(page, "members-team", { overflow: false });

    await row.getByLabel(`Role of ${invitee}`).selectOption("member");
    const lin = await createTestIdentity(platform.weft, owner);
    const workspaces = await callRpc(platform.weft.url, "access.listWorkspaces", {}, { token: lin.credential });
    const kitchen = (workspaces.json as { results: { id: string; name: string }[] }).results.find(
      (workspace) => workspace.name === "Kitchen",
    );
    const roleOf = async () => {
      const members = await callRpc(
        platform.weft.url,
        "access.listMembers",
        { workspaceId: kitchen?.id },
        { token: lin.credential },
      );
      return (members.json as { results: { email: string; role: string }[] }).results.find(
        (member) => member.email === invitee,
      )?.role;
    };
    await expect.poll(roleOf).toBe("member");
    // The row shows the role the members list holds, which is read again once the change is made.
    await expect.poll(() => row.getByLabel(`Role of ${invitee}`).inputValue()).toBe("member");

    await row.getByRole("button", { name: `Remove ${invitee}…` }).click();
    await row.getByRole("button", { name: `Keep ${invitee}` }).click();
    expect(await roleOf()).toBe("member");
    await row.getByRole("button", { name: `Remove ${invitee}…` }).click();
    await row.getByRole("button", { name: `Yes, remove ${invitee}` }).click();
    await row.waitFor({ state: "detached" });
    expect(await roleOf()).toBeUndefined();

    const audit = await callRpc(
      platform.weft.url,
      "access.auditLog",
      { workspaceId: kitchen?.id },
      { token: lin.credential },
    );
    const actions = (audit.json as { data: { action: string }[] }).data.map((event) => event.action);
    expect(actions).toEqual(
      expect.arrayContaining(["workspace.created", "member.invited", "member.role_changed", "member.removed"]),
    );
    expect(problems).toEqual([]);
  });
});
