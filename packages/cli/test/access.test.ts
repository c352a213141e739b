import {
  acceptInvitationLink,
  createTestIdentity,
  outboxInvitationLink,
  registerEmailAgent,
  type TestIdentity,
} from "@weft/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { parseJson, runCli } from "./support/run-cli.ts";
import { signedInPlatform } from "./support/signed-in-platform.ts";

const signedIn = signedInPlatform("cli-owner@example.com", { env: { WEFT_ROLES: "auth,api" } });
let invitee: TestIdentity;
let workspaceId: string;

beforeAll(async () => {
  invitee = await createTestIdentity(signedIn.weft, "cli-invitee@example.com");
});

describe("weft workspaces and weft members", () => {
  it("creates and lists workspaces", async () => {
    const created = await runCli(["workspaces", "create", "CLI team", "--json"], { env: signedIn.env });
    expect(created.code).toBe(0);
    workspaceId = parseJson<{ id: string }>(created).id;
    const listed = parseJson<{ results: { id: string; role: string; personal: boolean }[] }>(
      await runCli(["workspaces", "list", "--json"], { env: signedIn.env }),
    );
    expect(listed.results).toEqual([
      expect.objectContaining({ id: signedIn.identity.personalWorkspaceId, personal: true }),
      expect.objectContaining({ id: workspaceId, role: "owner", personal: false }),
    ]);
    const text = await runCli(["workspaces", "list"], { env: signedIn.env });
    expect(text.stdout).toMatch(/^ID\s+NAME\s+ROLE\s+KIND\n/);
  });

  it("invites, lists, changes a role and removes a member", async () => {
    const invited = await runCli(
      ["members", "invite", invitee.email, "--role", "admin", "--workspace", workspaceId, "--json"],
      { env: signedIn.env },
    );
    expect(invited.code).toBe(0);
    expect(parseJson(invited)).toMatchObject({ email: invitee.email, role: "admin", status: "pending" });
    await acceptInvitationLink(outboxInvitationLink(signedIn.weft, invitee.email));

    const members = parseJson<{ results: { accountId: string; role: string }[] }>(
      await runCli(["members", "list", "--workspace", workspaceId, "--json"], { env: signedIn.env }),
    );
    expect(members.results).toContainEqual(expect.objectContaining({ accountId: invitee.accountId, role: "admin" }));

    const role = await runCli(["members", "role", invitee.accountId, "viewer", "--workspace", workspaceId, "--json"], {
      env: signedIn.env,
    });
    expect(parseJson(role)).toMatchObject({ accountId: invitee.accountId, role: "viewer" });
    expect(
      (await runCli(["members", "role", invitee.accountId, "chief", "--workspace", workspaceId], { env: signedIn.env }))
        .code,
    ).toBe(2);

    const lastOwner = await runCli(
      ["members", "remove", signedIn.identity.accountId, "--workspace", workspaceId, "--json"],
      {
        env: signedIn.env,
      },
    );
    expect(lastOwner.code).toBe(1);
    expect(parseJson(lastOwner)).toMatchObject({ error: { code: "conflict" } });

    const removed = await runCli(["members", "remove", invitee.accountId, "--workspace", workspaceId, "--json"], {
      env: signedIn.env,
    });
    expect(parseJson(removed)).toEqual({ accountId: invitee.accountId, removed: true });
  });
  it("changes a role and removes a member named by email, and names `weft members list` for an unknown one", async () => {
    // A workspace of its own keeps this invitation out of the audit log the next tests read.
    const teamId = parseJson<{ id: string }>(
      await runCli(["workspaces", "create", "CLI by email", "--json"], { env: signedIn.env }),
    ).id;
    const member = await createTestIdentity(signedIn.weft, "cli-by-email@example.com");
    await runCli(["members", "invite", member.email, "--role", "member", "--workspace", teamId], { env: signedIn.env });
    await acceptInvitationLink(outboxInvitationLink(signedIn.weft, member.email));

    const role = await runCli(
      ["members", "role", "CLI-By-Email@example.com", "admin", "--workspace", teamId, "--json"],
      { env: signedIn.env },
    );
    expect(role.code, role.stderr).toBe(0);
    expect(parseJson(role)).toMatchObject({ accountId: member.accountId, email: member.email, role: "admin" });

    const unknown = await runCli(["members", "remove", "nobody@example.com", "--workspace", teamId], {
      env: signedIn.env,
    });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`nobody@example.com is not a member of workspace ${teamId}`);
    expect(unknown.stderr).toContain(`weft members list --workspace ${teamId}`);
    const unknownJson = await runCli(
      ["members", "role", "nobody@example.com", "viewer", "--workspace", teamId, "--json"],
      { env: signedIn.env },
    );
    expect(parseJson(unknownJson)).toMatchObject({ error: { code: "not_found" } });

    const removed = await runCli(["members", "remove", member.email, "--workspace", teamId, "--json"], {
      env: signedIn.env,
    });
    expect(parseJson(removed)).toEqual({ accountId: member.accountId, removed: true });
  });
});

describe("weft agents and weft audit", () => {
  it("lists and revokes agents, and revokes all of a workspace", async () => {
    const agent = await registerEmailAgent(signedIn.weft, signedIn.identity.email, { userAgent: "cli-test-agent/1" });
    const listed = await runCli(["agents", "list", "--json"], { env: signedIn.env });
    expect(parseJson<{ results: { id: string; agent: { userAgent: string } }[] }>(listed).results).toEqual([
      expect.objectContaining({ id: agent.agentId, agent: expect.objectContaining({ userAgent: "cli-test-agent/1" }) }),
    ]);
    const revoked = await runCli(["agents", "revoke", agent.agentId, "--json"], { env: signedIn.env });
    expect(parseJson(revoked)).toMatchObject({ id: agent.agentId, status: "revoked" });

    await registerEmailAgent(signedIn.weft, signedIn.identity.email);
    const all = await runCli(["agents", "revoke-all", "--workspace", workspaceId, "--json"], { env: signedIn.env });
    expect(parseJson(all)).toEqual({ revoked: 1 });
    expect((await runCli(["agents", "list", "--status", "sleeping"], { env: signedIn.env })).code).toBe(2);
  });

  it("reads the audit log, filtered by action, paging with --cursor", async () => {
    const first = parseJson<{ data: { action: string }[]; nextCursor?: string }>(
      await runCli(["audit", "--workspace", workspaceId, "--limit", "2", "--json"], { env: signedIn.env }),
    );
    expect(first.data).toHaveLength(2);
    expect(first.nextCursor).toBeDefined();
    const next = parseJson<{ data: { action: string }[] }>(
      await runCli(
        ["audit", "--workspace", workspaceId, "--limit", "2", "--cursor", first.nextCursor ?? "", "--json"],
        {
          env: signedIn.env,
        },
      ),
    );
    expect(next.data.length).toBeGreaterThan(0);
    const invited = parseJson<{ data: { action: string; actor: { email: string } }[] }>(
      await runCli(["audit", "--workspace", workspaceId, "--action", "member.invited", "--json"], {
        env: signedIn.env,
      }),
    );
    expect(invited.data).toEqual([
      expect.objectContaining({
        action: "member.invited",
        actor: expect.objectContaining({ email: signedIn.identity.email }),
      }),
    ]);
    const text = await runCli(["audit", "--workspace", workspaceId, "--since", "2000-01-01T00:00:00Z"], {
      env: signedIn.env,
    });
    expect(text.stdout).toMatch(/^WHEN\s+ACTION\s+ACTOR\s+AGENT\s+TARGET\n/);
  });
});
