import {
  callRpc,
  createTeamWorkspace,
  createTestIdentity,
  joinWorkspace,
  startTestPlatform,
  type TestIdentity,
  type TestPlatform,
} from "@weft/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, memberships } from "../src/db/schema/index.ts";
import { startPlatform } from "../src/platform.ts";
import { createLogger } from "../src/shared/logger.ts";

let weft: TestPlatform;
let olivia: TestIdentity;
let adam: TestIdentity;
let mia: TestIdentity;
let vic: TestIdentity;
let stranger: TestIdentity;
let workspaceId: string;

const call = (who: TestIdentity, procedure: string, input: unknown) =>
  callRpc(weft.url, procedure, input, { token: who.credential });

async function roleOf(accountId: string): Promise<string | undefined> {
  const members = await call(olivia, "access.listMembers", { workspaceId });
  const results = (members.json as { results: { accountId: string; role: string }[] }).results;
  return results.find((member) => member.accountId === accountId)?.role;
}

beforeAll(async () => {
  weft = await startTestPlatform();
  olivia = await createTestIdentity(weft, "olivia@example.com");
  adam = await createTestIdentity(weft, "adam@example.com");
  mia = await createTestIdentity(weft, "mia@example.com");
  vic = await createTestIdentity(weft, "vic@example.com");
  stranger = await createTestIdentity(weft, "stranger@example.com");
  workspaceId = await createTeamWorkspace(weft, olivia, "Acme");
  await joinWorkspace(weft, { workspaceId, by: olivia, member: adam, role: "admin" });
  await joinWorkspace(weft, { workspaceId, by: olivia, member: mia, role: "member" });
  await joinWorkspace(weft, { workspaceId, by: adam, member: vic, role: "viewer" });
});

afterAll(async () => {
  await weft.stop();
});

describe("workspaces", () => {
  it("creates a team workspace with the caller as owner, listed with the caller's role", async () => {
    const listed = await call(mia, "access.listWorkspaces", {});
    expect(listed.status).toBe(200);
    const page = listed.json as { results: { id: string; name: string; role: string; personal: boolean }[] };
    expect(page.results).toEqual([
      expect.objectContaining({ id: mia.personalWorkspaceId, role: "owner", personal: true }),
      expect.objectContaining({ id: workspaceId, name: "Acme", role: "member", personal: false }),
    ]);
  });

  it("refuses a second workspace of the same name for the same person (CONFLICT)", async () => {
    const again = await call(olivia, "access.createWorkspace", { name: "Acme" });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ code: "CONFLICT" });
  });

  it("lets owners and admins rename it, refuses members, and hides it from strangers", async () => {
    expect((await call(adam, "access.renameWorkspace", { workspaceId, name: "Acme Inc" })).status).toBe(200);
    expect((await call(mia, "access.renameWorkspace", { workspaceId, name: "Mine" })).status).toBe(403);
    const foreign = await call(stranger, "access.renameWorkspace", { workspaceId, name: "Mine" });
    expect(foreign.status).toBe(404);
    expect(foreign.json).toMatchObject({ code: "NOT_FOUND" });
    expect((await call(olivia, "access.renameWorkspace", { workspaceId, name: "Acme" })).status).toBe(200);
  });

  it("lists members with email, role and joinedAt", async () => {
    const members = await call(vic, "access.listMembers", { workspaceId });
    expect(members.status).toBe(200);
    const page = members.json as { totalCount: number; results: { email: string; role: string; joinedAt: string }[] };
    expect(page.totalCount).toBe(4);
    expect(page.results.map(({ email, role }) => [email, role]).sort()).toEqual([
      ["adam@example.com", "admin"],
      ["mia@example.com", "member"],
      ["olivia@example.com", "owner"],
      ["vic@example.com", "viewer"],
    ]);
    expect((await call(stranger, "access.listMembers", { workspaceId })).status).toBe(404);
  });
});

describe("role rules", () => {
  it("only owners and admins manage members and invitations", async () => {
    for (const [who, other] of [
      [mia, vic],
      [vic, mia],
    ] as const) {
      const invite = await call(who, "access.invite", { workspaceId, email: "new@example.com", role: "viewer" });
      expect(invite.status).toBe(403);
      expect(invite.json).toMatchObject({ code: "FORBIDDEN" });
      const change = await call(who, "access.updateRole", { workspaceId, accountId: other.accountId, role: "viewer" });
      expect(change.status).toBe(403);
      expect((await call(who, "access.removeMember", { workspaceId, accountId: adam.accountId })).status).toBe(403);
      expect((await call(who, "access.listInvitations", { workspaceId })).status).toBe(403);
    }
    expect(await roleOf(vic.accountId)).toBe("viewer");
  });

  it("nobody grants a role above their own", async () => {
    const invite = await call(adam, "access.invite", { workspaceId, email: "boss@example.com", role: "owner" });
    expect(invite.status).toBe(403);
    expect(invite.json).toMatchObject({ message: "Your admin role cannot grant the owner role." });
    const promote = await call(adam, "access.updateRole", { workspaceId, accountId: mia.accountId, role: "owner" });
    expect(promote.status).toBe(403);
    expect(await roleOf(mia.accountId)).toBe("member");
  });

  it("an admin may grant up to admin", async () => {
    const promote = await call(adam, "access.updateRole", { workspaceId, accountId: vic.accountId, role: "admin" });
    expect(promote.status).toBe(200);
    expect(promote.json).toMatchObject({ accountId: vic.accountId, role: "admin", email: "vic@example.com" });
    expect(
      (await call(adam, "access.updateRole", { workspaceId, accountId: vic.accountId, role: "viewer" })).status,
    ).toBe(200);
  });

  it("an admin cannot change or remove an owner", async () => {
    const demote = await call(adam, "access.updateRole", { workspaceId, accountId: olivia.accountId, role: "member" });
    expect(demote.status).toBe(403);
    expect(demote.json).toMatchObject({ message: "Your admin role cannot change or remove an owner." });
    expect((await call(adam, "access.removeMember", { workspaceId, accountId: olivia.accountId })).status).toBe(403);
    expect(await roleOf(olivia.accountId)).toBe("owner");
  });

  it("the last owner can neither leave nor be demoted (CONFLICT)", async () => {
    const leave = await call(olivia, "access.removeMember", { workspaceId, accountId: olivia.accountId });
    expect(leave.status).toBe(409);
    expect(leave.json).toMatchObject({ code: "CONFLICT" });
    const demote = await call(olivia, "access.updateRole", { workspaceId, accountId: olivia.accountId, role: "admin" });
    expect(demote.status).toBe(409);
    expect(await roleOf(olivia.accountId)).toBe("owner");
  });

  it("refuses a change of one's own role with a clear message", async () => {
    const own = await call(adam, "access.updateRole", { workspaceId, accountId: adam.accountId, role: "member" });
    expect(own.status).toBe(400);
    expect(own.json).toMatchObject({
      code: "BAD_REQUEST",
      data: {
        issues: [{ path: ["accountId"], message: "You cannot change your own role; ask another owner or admin." }],
      },
    });
    expect(await roleOf(adam.accountId)).toBe("admin");
  });

  it("answers NOT_FOUND for an account that is not a member and for another workspace", async () => {
    const notMember = await call(olivia, "access.updateRole", {
      workspaceId,
      accountId: stranger.accountId,
      role: "viewer",
    });
    expect(notMember.status).toBe(404);
    const foreign = await call(olivia, "access.removeMember", {
      workspaceId: stranger.personalWorkspaceId,
      accountId: stranger.accountId,
    });
    expect(foreign.status).toBe(404);
  });

  it("with a second owner, the first may leave", async () => {
    const team = await createTeamWorkspace(weft, olivia, "Two owners");
    await joinWorkspace(weft, { workspaceId: team, by: olivia, member: adam, role: "owner" });
    const leave = await call(olivia, "access.removeMember", { workspaceId: team, accountId: olivia.accountId });
    expect(leave.status).toBe(200);
    const last = await call(adam, "access.removeMember", { workspaceId: team, accountId: adam.accountId });
    expect(last.status).toBe(409);
  });
});

describe("concurrent changes", () => {
  it("two owners leaving at once leave one owner behind", async () => {
    const team = await createTeamWorkspace(weft, olivia, "Racing owners");
    await joinWorkspace(weft, { workspaceId: team, by: olivia, member: adam, role: "owner" });
    const outcomes = await Promise.all(
      [olivia, adam].map((who) => call(who, "access.removeMember", { workspaceId: team, accountId: who.accountId })),
    );
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual([200, 409]);
    const owners = await weft.database.db.select().from(memberships).where(eq(memberships.workspaceId, team));
    expect(owners.map((row) => row.role)).toEqual(["owner"]);
  });

  it("two owners demoting each other at once: one wins, the other is refused", async () => {
    const team = await createTeamWorkspace(weft, olivia, "Racing demotions");
    await joinWorkspace(weft, { workspaceId: team, by: olivia, member: adam, role: "owner" });
    const outcomes = await Promise.all([
      call(olivia, "access.updateRole", { workspaceId: team, accountId: adam.accountId, role: "admin" }),
      call(adam, "access.updateRole", { workspaceId: team, accountId: olivia.accountId, role: "admin" }),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual([200, 403]);
    const roles = await weft.database.db.select().from(memberships).where(eq(memberships.workspaceId, team));
    expect(roles.map((row) => row.role).sort()).toEqual(["admin", "owner"]);
  });
});

describe("bad input", () => {
  it.each([
    ["access.invite", () => ({ workspaceId, email: "not-an-email", role: "member" }), ["email"]],
    ["access.invite", () => ({ workspaceId, email: "x@example.com", role: "chief" }), ["role"]],
    ["access.updateRole", () => ({ workspaceId, accountId: "acc_nope", role: "viewer" }), ["accountId"]],
    ["access.createWorkspace", () => ({ name: "   " }), ["name"]],
    ["access.renameWorkspace", () => ({ workspaceId, name: "x".repeat(65) }), ["name"]],
    ["access.auditLog", () => ({ workspaceId, filter: { since: "yesterday" } }), ["filter", "since"]],
    ["access.revokeInvitation", () => ({ invitationId: "inv_1" }), ["invitationId"]],
  ] as const)(
    "%s refuses bad input with BAD_REQUEST naming the field, and changes nothing",
    async (procedure, input, path) => {
      const before = await weft.database.db.select().from(auditEvents);
      const refused = await call(olivia, procedure, input());
      expect(refused.status).toBe(400);
      const refusal = refused.json as { code: string; data: { issues: { path: unknown[] }[] } };
      expect(refusal.code).toBe("BAD_REQUEST");
      expect(refusal.data.issues[0]?.path).toEqual(path);
      expect(await weft.database.db.select().from(auditEvents)).toEqual(before);
    },
  );
});

describe("removal", () => {
  it("a member may leave, and loses the workspace on the very next request", async () => {
    const team = await createTeamWorkspace(weft, olivia, "Leavers");
    await joinWorkspace(weft, { workspaceId: team, by: olivia, member: mia, role: "member" });
    expect((await call(mia, "projects.list", { workspaceId: team })).status).toBe(200);
    const leave = await call(mia, "access.removeMember", { workspaceId: team, accountId: mia.accountId });
    expect(leave.status).toBe(200);
    expect((await call(mia, "projects.list", { workspaceId: team })).status).toBe(404);
  });

  it("a removed member's credential loses the workspace in another process too", async () => {
    const second = await startPlatform(
      { ...weft.platform.context.config, port: 0 },
      { clock: weft.clock, database: weft.database, logger: createLogger({ level: "silent" }) },
    );
    try {
      const team = await createTeamWorkspace(weft, olivia, "Elsewhere");
      await joinWorkspace(weft, { workspaceId: team, by: olivia, member: vic, role: "member" });
      const elsewhere = () =>
        callRpc(second.listenUrl, "projects.list", { workspaceId: team }, { token: vic.credential });
      // The other process has the member's principal, with this workspace, in its cache.
      expect((await elsewhere()).status).toBe(200);
      expect((await call(olivia, "access.removeMember", { workspaceId: team, accountId: vic.accountId })).status).toBe(
        200,
      );
      await expect.poll(async () => (await elsewhere()).status, { interval: 20 }).toBe(404);
      const rows = await weft.database.db.select().from(memberships).where(eq(memberships.workspaceId, team));
      expect(rows.map((row) => row.accountId)).toEqual([olivia.accountId]);
    } finally {
      await second.stop();
    }
  });

  it("records who left, with the acting credential", async () => {
    const events = await weft.database.db.select().from(auditEvents).where(eq(auditEvents.targetId, mia.accountId));
    expect(events.find((event) => event.action === "member.left")).toMatchObject({
      actorAccountId: mia.accountId,
      actorEmail: "mia@example.com",
      actorCredentialId: mia.credentialId,
    });
  });
});
