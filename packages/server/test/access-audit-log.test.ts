import {
  acceptInvitationLink,
  callRpc,
  createTestIdentity,
  decide,
  emailRegistration,
  outboxInvitationLink,
  postJson,
  registerEmailAgent,
  registerIdJagAgent,
  type TestAgent,
  type TestIdentity,
  trustingTestPlatform,
} from "@weft/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "../src/db/schema/index.ts";

interface LoggedEvent {
  id: string;
  action: string;
  actor: {
    accountId: string | null;
    email: string | null;
    credentialId: string | null;
    agentId: string | null;
    agent: { clientId: string | null; issuer: string | null; userAgent: string | null } | null;
    via: "rpc" | "api" | "mcp" | null;
  };
  targetType: string;
  targetId: string;
  data: Record<string, unknown> | null;
  createdAt: string;
}

const platform = trustingTestPlatform({
  env: { WEFT_ROLES: "auth,api" },
});
let olgaAgent: TestAgent;
let olga: { accountId: string; personalWorkspaceId: string };
let bob: TestIdentity;
let teamId: string;

async function auditLog(token: string, input: Record<string, unknown>) {
  return callRpc(platform.weft.url, "access.auditLog", input, { token });
}

/** The newest event of `action` in a workspace's log, read through the API as its owner. */
async function eventOf(token: string, workspaceId: string, action: string): Promise<LoggedEvent> {
  const page = await auditLog(token, { workspaceId, filter: { action } });
  expect(page.status, page.text).toBe(200);
  const event = (page.json as { data: LoggedEvent[] }).data[0];
  if (event === undefined) throw new Error(`no ${action} event in ${workspaceId}`);
  return event;
}

const olgaCall = (procedure: string, input: unknown) =>
  callRpc(platform.weft.url, procedure, input, { token: olgaAgent.credential });

beforeAll(async () => {
  // No worker: executions stay queued, so one can be cancelled.
  olgaAgent = await registerIdJagAgent(platform.weft, platform.idp, "olga@example.com");
  const workspaces = await olgaCall("access.listWorkspaces", {});
  const personal = (workspaces.json as { results: { id: string }[] }).results[0];
  const members = await olgaCall("access.listMembers", { workspaceId: personal?.id });
  olga = {
    accountId: (members.json as { results: { accountId: string }[] }).results[0]?.accountId ?? "",
    personalWorkspaceId: personal?.id ?? "",
  };
  bob = await createTestIdentity(platform.weft, "bob@example.com");
});

describe("every change is an audit event naming the agent that made it", () => {
  /**
   * Olga acts through her ID-JAG agent: every event she causes names it, and the surface it came
   * through (none for the registration itself, made at the authorization server).
   */
  function expectOlgaAgent(event: LoggedEvent, via: LoggedEvent["actor"]["via"] = "rpc") {
    expect(event.actor).toEqual({
      accountId: olga.accountId,
      email: "olga@example.com",
      credentialId: expect.stringMatching(/^cred_/),
      agentId: olgaAgent.agentId,
      agent: { clientId: platform.idp.clientId, issuer: platform.idp.issuer, userAgent: null },
      via,
    });
  }

  it("registration created (ID-JAG)", async () => {
    const event = await eventOf(olgaAgent.credential, olga.personalWorkspaceId, "registration.created");
    expect(event).toMatchObject({ targetType: "registration", targetId: olgaAgent.agentId });
    expectOlgaAgent(event, null);
  });

  it("workspace created and renamed, member invited, joined, role changed and removed", async () => {
    const created = await olgaCall("access.createWorkspace", { name: "Team" });
    teamId = (created.json as { id: string }).id;
    expectOlgaAgent(await eventOf(olgaAgent.credential, teamId, "workspace.created"));
    await olgaCall("access.renameWorkspace", { workspaceId: teamId, name: "Team A" });
    const renamed = await eventOf(olgaAgent.credential, teamId, "workspace.renamed");
    expect(renamed).toMatchObject({ targetType: "workspace", targetId: teamId, data: { from: "Team", to: "Team A" } });
    expectOlgaAgent(renamed);

    const invited = await olgaCall("access.invite", { workspaceId: teamId, email: bob.email, role: "member" });
    const invitation = await eventOf(olgaAgent.credential, teamId, "member.invited");
    expect(invitation).toMatchObject({ targetType: "invitation", targetId: (invited.json as { id: string }).id });
    expectOlgaAgent(invitation);

    await acceptInvitationLink(outboxInvitationLink(platform.weft, bob.email));
    const joined = await eventOf(olgaAgent.credential, teamId, "member.joined");
    expect(joined).toMatchObject({ targetType: "account", targetId: bob.accountId });
    expect(joined.actor).toMatchObject({ accountId: bob.accountId, email: bob.email });

    await olgaCall("access.updateRole", { workspaceId: teamId, accountId: bob.accountId, role: "viewer" });
    const changed = await eventOf(olgaAgent.credential, teamId, "member.role_changed");
    expect(changed).toMatchObject({ targetId: bob.accountId, data: { from: "member", to: "viewer" } });
    expectOlgaAgent(changed);
  });

  it("project created, renamed; deployment created, activated; execution started, cancelled, re-run; project deleted", async () => {
    const project = await olgaCall("projects.create", { name: "Audited", workspaceId: teamId });
    const projectId = (project.json as { id: string }).id;
    await olgaCall("projects.update", { projectId, name: "Audited 2" });
    const deployed = await olgaCall("deployments.create", {
      projectId,
      manifest: { version: 1, workflows: [{ name: "echo" }] },
      bundle: 'export default { workflows: [{ name: "echo", run: async (input) => input }] };',
    });
    const deploymentId = (deployed.json as { id: string }).id;
    expect((await olgaCall("deployments.activate", { projectId, deploymentId })).status).toBe(200);
    const ran = await olgaCall("workflows.run", { projectId, workflow: "echo", input: { n: 1 } });
    const executionId = (ran.json as { executionId: string }).executionId;
    expect((await olgaCall("workflows.cancelExecution", { executionId })).status).toBe(200);
    const rerun = await olgaCall("workflows.rerunExecution", { executionId });
    const rerunId = (rerun.json as { executionId: string }).executionId;
    expect((await olgaCall("projects.delete", { projectId })).status).toBe(200);

    const expected: [string, string, string][] = [
      ["project.created", "project", projectId],
      ["project.renamed", "project", projectId],
      ["deployment.created", "deployment", deploymentId],
      ["deployment.activated", "deployment", deploymentId],
      ["execution.started", "execution", executionId],
      ["execution.cancelled", "execution", executionId],
      ["execution.rerun", "execution", rerunId],
      ["project.deleted", "project", projectId],
    ];
    for (const [action, targetType, targetId] of expected) {
      const event = await eventOf(olgaAgent.credential, teamId, action);
      expect(event, action).toMatchObject({ targetType, targetId });
      expectOlgaAgent(event);
    }
  });

  it("member removed", async () => {
    await olgaCall("access.removeMember", { workspaceId: teamId, accountId: bob.accountId });
    const removed = await eventOf(olgaAgent.credential, teamId, "member.removed");
    expect(removed).toMatchObject({ targetType: "account", targetId: bob.accountId, data: { role: "viewer" } });
    expectOlgaAgent(removed);
  });

  it("registration claimed, denied and revoked (email)", async () => {
    const claimed = await registerEmailAgent(platform.weft, bob.email, { userAgent: "bob-bot/2" });
    const claim = await eventOf(bob.credential, bob.personalWorkspaceId, "registration.claimed");
    expect(claim).toMatchObject({ targetType: "registration", targetId: claimed.agentId });
    expect(claim.actor).toMatchObject({
      accountId: bob.accountId,
      email: bob.email,
      agentId: claimed.agentId,
      agent: { userAgent: "bob-bot/2" },
    });

    for (const decision of ["deny", "revoke"] as const) {
      const registered = await postJson(`${platform.weft.url}/agent/auth`, emailRegistration(bob.email));
      const mail = platform.weft.platform.context.mailer.outbox?.list().find((message) => message.to === bob.email);
      const link = mail?.text.match(/https?:\/\/\S+\/agent\/auth\/approve\?token=apv_[A-Za-z0-9_-]{43}/)?.[0] ?? "";
      if (decision === "revoke") await decide(link, "approve");
      await decide(link, decision);
      const action = decision === "deny" ? "registration.denied" : "registration.revoked";
      const event = await eventOf(bob.credential, bob.personalWorkspaceId, action);
      expect(event).toMatchObject({ targetId: registered.body.registration_id, actor: { email: bob.email } });
    }
  });

  it("credential revoked by its holder", async () => {
    const agent = await registerEmailAgent(platform.weft, bob.email);
    await postJson(`${platform.weft.url}/agent/auth/revoke`, { credential: agent.credential });
    const event = await eventOf(bob.credential, bob.personalWorkspaceId, "credential.revoked");
    expect(event).toMatchObject({ targetType: "credential", actor: { accountId: bob.accountId } });
  });

  it("agent revoked, and all agents revoked", async () => {
    const other = await registerIdJagAgent(platform.weft, platform.idp, "olga@example.com");
    expect((await olgaCall("agents.revoke", { agentId: other.agentId })).status).toBe(200);
    const revoked = await eventOf(olgaAgent.credential, olga.personalWorkspaceId, "agent.revoked");
    expect(revoked).toMatchObject({ targetType: "agent", targetId: other.agentId });
    expectOlgaAgent(revoked);

    expect((await olgaCall("agents.revokeAll", { workspaceId: teamId })).status).toBe(200);
    const all = await eventOf(olgaAgent.credential, teamId, "agent.revoked_all");
    expect(all).toMatchObject({ targetType: "workspace", targetId: teamId });
    expectOlgaAgent(all);
  });

  it("never stores a secret in an event", async () => {
    const stored = JSON.stringify(await platform.weft.database.db.select().from(auditEvents));
    for (const prefix of ["weft_", "clm_", "apv_", "ivt_"]) expect(stored).not.toContain(prefix);
    expect(stored).not.toContain(olgaAgent.credential);
  });
});

describe("access.auditLog", () => {
  it("is newest first and pages with nextCursor, absent on the last page", async () => {
    const all = await auditLog(olgaAgent.credential, { workspaceId: teamId, limit: 200 });
    const events = (all.json as { data: LoggedEvent[]; nextCursor?: string }).data;
    expect(all.json).not.toHaveProperty("nextCursor");
    const instants = events.map((event) => event.createdAt);
    expect([...instants].sort().reverse()).toEqual(instants);
    const walked: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await auditLog(olgaAgent.credential, { workspaceId: teamId, limit: 3, cursor });
      const body = page.json as { data: LoggedEvent[]; nextCursor?: string };
      walked.push(...body.data.map((event) => event.id));
      cursor = body.nextCursor;
    } while (cursor !== undefined);
    expect(walked).toEqual(events.map((event) => event.id));
  });

  it("filters by actor, action, target and time", async () => {
    const all = (await auditLog(olgaAgent.credential, { workspaceId: teamId, limit: 200 })).json as {
      data: LoggedEvent[];
    };
    const byBob = await auditLog(olgaAgent.credential, { workspaceId: teamId, filter: { actor: bob.accountId } });
    expect((byBob.json as { data: LoggedEvent[] }).data.map((event) => event.action)).toEqual(["member.joined"]);
    const credentialId = all.data.find((event) => event.actor.agentId === olgaAgent.agentId)?.actor.credentialId;
    const byCredential = await auditLog(olgaAgent.credential, {
      workspaceId: teamId,
      filter: { actor: credentialId },
      limit: 200,
    });
    expect((byCredential.json as { data: LoggedEvent[] }).data.length).toBe(
      all.data.filter((event) => event.actor.credentialId === credentialId).length,
    );
    const byTarget = await auditLog(olgaAgent.credential, {
      workspaceId: teamId,
      filter: { targetType: "account", targetId: bob.accountId },
    });
    expect((byTarget.json as { data: LoggedEvent[] }).data.map((event) => event.action)).toEqual([
      "member.removed",
      "member.role_changed",
      "member.joined",
    ]);
    const later = new Date(platform.weft.clock.now().getTime() + 60_000).toISOString();
    const none = await auditLog(olgaAgent.credential, { workspaceId: teamId, filter: { since: later } });
    expect((none.json as { data: unknown[] }).data).toEqual([]);
    const until = await auditLog(olgaAgent.credential, { workspaceId: teamId, filter: { until: later }, limit: 200 });
    expect((until.json as { data: unknown[] }).data.length).toBe(all.data.length);
  });

  it("is read by owners and admins only; NOT_FOUND outside the workspace; at most 200 a page", async () => {
    const member = await createTestIdentity(platform.weft, "member@example.com");
    const stranger = await auditLog(member.credential, { workspaceId: teamId });
    expect(stranger.status).toBe(404);
    await olgaCall("access.invite", { workspaceId: teamId, email: member.email, role: "member" });
    await acceptInvitationLink(outboxInvitationLink(platform.weft, member.email));
    const refused = await auditLog(member.credential, { workspaceId: teamId });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({
      message: "Your member role cannot read the audit log: only an owner or an admin can.",
    });
    const tooMany = await auditLog(olgaAgent.credential, { workspaceId: teamId, limit: 201 });
    expect(tooMany.status).toBe(400);
    expect(tooMany.json).toMatchObject({ data: { issues: [{ path: ["limit"] }] } });
  });
});
