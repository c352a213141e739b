import { isContractProcedure } from "@orpc/contract";
import { contract } from "@weft/contract";
import {
  callRpc,
  createTeamWorkspace,
  createTestIdentity,
  joinWorkspace,
  registerEmailAgent,
  startTestPlatform,
  storeTestWaitToken,
  type TestIdentity,
  type TestPlatform,
} from "@weft/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  auditEvents,
  credentials,
  deployments,
  executions,
  integrations,
  invitations,
  memberships,
  projects,
  schedules,
  waitTokens,
  workspaces,
} from "../src/db/schema/index.ts";

/** A team workspace with something of everything in it, its owner, and a viewer of it. */
interface TeamFixture {
  owner: TestIdentity;
  viewer: TestIdentity;
  workspaceId: string;
  projectId: string;
  deploymentId: string;
  executionId: string;
  traceId: string;
  invitationId: string;
  ownerAgentId: string;
  tokenId: string;
}

/**
 * What a viewer gets from each procedure of the contract, aimed at the team's things: `reads` (200),
 * `refused` (403: the viewer sees the target but may not do this), `hidden` (404: the target is
 * another member's agent, which only owners and admins see), or `own-account` (acts on the
 * viewer's own account only, so it may succeed). In every case nothing of the workspace changes. A
 * procedure without an entry fails the test.
 */
const viewerCalls: Record<
  string,
  { input: (team: TeamFixture) => unknown; outcome: "reads" | "refused" | "hidden" | "own-account" }
> = {
  "projects.list": { input: ({ workspaceId }) => ({ workspaceId }), outcome: "reads" },
  "projects.get": { input: ({ projectId }) => ({ projectId }), outcome: "reads" },
  "projects.create": { input: ({ workspaceId }) => ({ workspaceId, name: "viewer's" }), outcome: "refused" },
  "projects.update": { input: ({ projectId }) => ({ projectId, name: "renamed" }), outcome: "refused" },
  "projects.delete": { input: ({ projectId }) => ({ projectId }), outcome: "refused" },
  "deployments.create": {
    input: ({ projectId }) => ({ projectId, manifest: { version: 1, workflows: [{ name: "echo" }] }, bundle: "x" }),
    outcome: "refused",
  },
  "deployments.activate": {
    input: ({ projectId, deploymentId }) => ({ projectId, deploymentId }),
    outcome: "refused",
  },
  "deployments.list": { input: ({ projectId }) => ({ projectId }), outcome: "reads" },
  "deployments.get": { input: ({ deploymentId }) => ({ deploymentId }), outcome: "reads" },
  "workflows.list": { input: ({ projectId }) => ({ projectId }), outcome: "reads" },
  "workflows.get": { input: ({ projectId }) => ({ projectId, workflow: "echo" }), outcome: "reads" },
  "workflows.run": { input: ({ projectId }) => ({ projectId, workflow: "echo", input: {} }), outcome: "refused" },
  "workflows.listExecutions": { input: ({ projectId }) => ({ projectId }), outcome: "reads" },
  "workflows.getExecution": { input: ({ executionId }) => ({ executionId }), outcome: "reads" },
  "workflows.cancelExecution": { input: ({ executionId }) => ({ executionId }), outcome: "refused" },
  "workflows.rerunExecution": { input: ({ executionId }) => ({ executionId }), outcome: "refused" },
  "workflows.completeToken": { input: ({ tokenId }) => ({ tokenId, data: { approved: true } }), outcome: "refused" },
  "schedules.list": { input: ({ projectId }) => ({ projectId }), outcome: "reads" },
  "schedules.pause": { input: ({ projectId }) => ({ projectId, name: "nightly" }), outcome: "refused" },
  "schedules.resume": { input: ({ projectId }) => ({ projectId, name: "nightly" }), outcome: "refused" },
  "integrations.list": { input: ({ projectId }) => ({ projectId }), outcome: "reads" },
  "integrations.get": { input: ({ projectId }) => ({ projectId, name: "crm" }), outcome: "reads" },
  "integrations.create": {
    input: ({ projectId }) => ({ projectId, name: "viewers", kind: "secret", secrets: { value: "viewer-value" } }),
    outcome: "refused",
  },
  "integrations.update": {
    input: ({ projectId }) => ({ projectId, name: "crm", secrets: { value: "viewer-value" } }),
    outcome: "refused",
  },
  "integrations.delete": { input: ({ projectId }) => ({ projectId, name: "crm" }), outcome: "refused" },
  "traces.list": { input: ({ projectId }) => ({ projectId }), outcome: "reads" },
  "traces.get": { input: ({ projectId, traceId }) => ({ projectId, traceId }), outcome: "reads" },
  "resources.list": { input: ({ projectId }) => ({ projectId }), outcome: "reads" },
  "resources.get": { input: ({ projectId }) => ({ projectId, kind: "workflow", name: "echo" }), outcome: "reads" },
  "access.createWorkspace": { input: () => ({ name: "Viewer's own" }), outcome: "own-account" },
  "access.listWorkspaces": { input: () => ({}), outcome: "reads" },
  "access.renameWorkspace": { input: ({ workspaceId }) => ({ workspaceId, name: "renamed" }), outcome: "refused" },
  "access.listMembers": { input: ({ workspaceId }) => ({ workspaceId }), outcome: "reads" },
  "access.invite": {
    input: ({ workspaceId }) => ({ workspaceId, email: "friend@example.com", role: "viewer" }),
    outcome: "refused",
  },
  "access.listInvitations": { input: ({ workspaceId }) => ({ workspaceId }), outcome: "refused" },
  "access.revokeInvitation": { input: ({ invitationId }) => ({ invitationId }), outcome: "refused" },
  "access.updateRole": {
    input: ({ workspaceId, owner }) => ({ workspaceId, accountId: owner.accountId, role: "viewer" }),
    outcome: "refused",
  },
  "access.updateRole#self": {
    input: ({ workspaceId, viewer }) => ({ workspaceId, accountId: viewer.accountId, role: "member" }),
    outcome: "refused",
  },
  "access.removeMember": {
    input: ({ workspaceId, owner }) => ({ workspaceId, accountId: owner.accountId }),
    outcome: "refused",
  },
  "access.auditLog": { input: ({ workspaceId }) => ({ workspaceId }), outcome: "refused" },
  "agents.list": { input: () => ({}), outcome: "reads" },
  "agents.list#workspace": { input: ({ workspaceId }) => ({ workspaceId }), outcome: "refused" },
  "agents.get": { input: ({ ownerAgentId }) => ({ agentId: ownerAgentId }), outcome: "hidden" },
  "agents.revoke": { input: ({ ownerAgentId }) => ({ agentId: ownerAgentId }), outcome: "hidden" },
  "agents.revokeAll": { input: ({ workspaceId }) => ({ workspaceId }), outcome: "refused" },
};

function procedurePaths(router: object, prefix: string[] = []): string[] {
  return Object.entries(router).flatMap(([key, value]) => {
    if (isContractProcedure(value)) return [[...prefix, key].join(".")];
    return typeof value === "object" && value !== null ? procedurePaths(value, [...prefix, key]) : [];
  });
}

let weft: TestPlatform;
let team: TeamFixture;

/** Everything of the team workspace a write could change. */
async function teamState() {
  const db = weft.database.db;
  return {
    workspace: await db.select().from(workspaces).where(eq(workspaces.id, team.workspaceId)),
    memberships: await db.select().from(memberships).where(eq(memberships.workspaceId, team.workspaceId)),
    invitations: await db.select().from(invitations).where(eq(invitations.workspaceId, team.workspaceId)),
    projects: await db.select().from(projects).where(eq(projects.workspaceId, team.workspaceId)),
    deployments: await db.select({ id: deployments.id }).from(deployments).orderBy(deployments.id),
    executions: await db.select({ id: executions.id }).from(executions).orderBy(executions.id),
    schedules: await db.select().from(schedules).where(eq(schedules.projectId, team.projectId)),
    waitTokens: await db.select().from(waitTokens).where(eq(waitTokens.projectId, team.projectId)),
    integrations: await db.select().from(integrations).where(eq(integrations.projectId, team.projectId)),
    credentials: await db
      .select({ id: credentials.id, revokedAt: credentials.revokedAt })
      .from(credentials)
      .orderBy(credentials.id),
    audit: await db
      .select({ id: auditEvents.id })
      .from(auditEvents)
      .where(eq(auditEvents.workspaceId, team.workspaceId))
      .orderBy(auditEvents.id),
  };
}

beforeAll(async () => {
  weft = await startTestPlatform();
  const owner = await createTestIdentity(weft, "owner@example.com");
  const viewer = await createTestIdentity(weft, "viewer@example.com");
  const workspaceId = await createTeamWorkspace(weft, owner, "Team");
  await joinWorkspace(weft, { workspaceId, by: owner, member: viewer, role: "viewer" });
  const token = { token: owner.credential };
  const created = await callRpc(weft.url, "projects.create", { name: "Shared", workspaceId }, token);
  const projectId = (created.json as { id: string }).id;
  const deployed = await callRpc(
    weft.url,
    "deployments.create",
    {
      projectId,
      manifest: { version: 1, workflows: [{ name: "echo" }] },
      bundle: 'export default { workflows: [{ name: "echo", run: async (input) => input }] };',
    },
    token,
  );
  const ran = await callRpc(weft.url, "workflows.run", { projectId, workflow: "echo", input: {} }, token);
  const executionId = (ran.json as { executionId: string }).executionId;
  const execution = await callRpc(weft.url, "workflows.getExecution", { executionId }, token);
  const invited = await callRpc(
    weft.url,
    "access.invite",
    { workspaceId, email: "pending@example.com", role: "member" },
    token,
  );
  await callRpc(
    weft.url,
    "integrations.create",
    { projectId, name: "crm", kind: "secret", secrets: { value: "team-secret-value" } },
    token,
  );
  const agent = await registerEmailAgent(weft, owner.email);
  const tokenId = await storeTestWaitToken(weft.database.db, { executionId, projectId, now: weft.clock.now() });
  team = {
    owner,
    viewer,
    workspaceId,
    projectId,
    deploymentId: (deployed.json as { id: string }).id,
    executionId,
    traceId: (execution.json as { traceId: string }).traceId,
    invitationId: (invited.json as { id: string }).id,
    ownerAgentId: agent.agentId,
    tokenId,
  };
});

afterAll(async () => {
  await weft.stop();
});

describe("a viewer reads and never writes", () => {
  const procedures = procedurePaths(contract);

  it("has a call for every procedure of the contract", () => {
    const covered = new Set(Object.keys(viewerCalls).map((name) => name.split("#")[0]));
    expect(procedures.filter((name) => !covered.has(name))).toEqual([]);
  });

  it.each(Object.entries(viewerCalls))("%s", async (name, call) => {
    const procedure = name.split("#")[0] ?? name;
    expect(procedures).toContain(procedure);
    const before = await teamState();
    const result = await callRpc(weft.url, procedure, call.input(team), { token: team.viewer.credential });
    const expected = {
      reads: [200, undefined],
      "own-account": [200, undefined],
      refused: [403, "FORBIDDEN"],
      hidden: [404, "NOT_FOUND"],
    }[call.outcome];
    expect(result.status, result.text).toBe(expected[0]);
    if (expected[1] !== undefined) expect(result.json).toMatchObject({ code: expected[1] });
    expect(await teamState()).toEqual(before);
  });
});
