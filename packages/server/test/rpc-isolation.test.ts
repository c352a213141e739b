import { randomUUID } from "node:crypto";
import { isContractProcedure } from "@orpc/contract";
import { contract } from "@weft/contract";
import {
  callRpc,
  createTestIdentity,
  postTokenRequest,
  randomTokenId,
  registerEmailAgent,
  startTestIdentityProvider,
  startTestPlatform,
  storeTestWaitToken,
  type TestIdentity,
  type TestIdentityProvider,
  type TestPlatform,
} from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  auditEvents,
  credentials,
  deployments,
  executions,
  federationPolicies,
  invitations,
  memberships,
  projects,
  schedules,
  waitTokens,
} from "../src/db/schema/index.ts";

/** What user B owns, for user A to try to reach. */
interface VictimFixture {
  victim: TestIdentity;
  projectId: string;
  deploymentId: string;
  executionId: string;
  traceId: string;
  invitationId: string;
  agentId: string;
  tokenId: string;
  policyId: string;
}

/**
 * Per procedure of the contract: an input aimed at B's things, and what A must get back. A
 * procedure added to the contract without an entry here fails the test, so every namespace that
 * lands is covered.
 */
const attempts: Record<
  string,
  {
    input: (fixture: VictimFixture) => unknown;
    /** `creates-own`: it can only create something of the caller's own, and does, touching nothing of B's. */
    expectation: "refused" | "sees-nothing" | "creates-own";
  }
> = {
  "projects.list": { input: () => ({}), expectation: "sees-nothing" },
  "projects.list#workspace": {
    input: ({ victim }) => ({ workspaceId: victim.personalWorkspaceId }),
    expectation: "refused",
  },
  "projects.get": { input: ({ projectId }) => ({ projectId }), expectation: "refused" },
  "projects.create": {
    input: ({ victim }) => ({ name: "intruder", workspaceId: victim.personalWorkspaceId }),
    expectation: "refused",
  },
  "projects.update": { input: ({ projectId }) => ({ projectId, name: "hijacked" }), expectation: "refused" },
  "projects.delete": { input: ({ projectId }) => ({ projectId }), expectation: "refused" },
  "deployments.create": {
    input: ({ projectId }) => ({ projectId, manifest: { version: 1, workflows: [{ name: "evil" }] }, bundle: "x" }),
    expectation: "refused",
  },
  "deployments.activate": {
    input: ({ projectId, deploymentId }) => ({ projectId, deploymentId }),
    expectation: "refused",
  },
  "deployments.list": { input: ({ projectId }) => ({ projectId }), expectation: "refused" },
  "deployments.get": { input: ({ deploymentId }) => ({ deploymentId }), expectation: "refused" },
  "workflows.list": { input: ({ projectId }) => ({ projectId }), expectation: "refused" },
  "workflows.get": { input: ({ projectId }) => ({ projectId, workflow: "echo" }), expectation: "refused" },
  "workflows.run": { input: ({ projectId }) => ({ projectId, workflow: "echo", input: {} }), expectation: "refused" },
  "workflows.listExecutions": { input: ({ projectId }) => ({ projectId }), expectation: "refused" },
  "workflows.getExecution": { input: ({ executionId }) => ({ executionId }), expectation: "refused" },
  "workflows.cancelExecution": { input: ({ executionId }) => ({ executionId }), expectation: "refused" },
  "workflows.rerunExecution": { input: ({ executionId }) => ({ executionId }), expectation: "refused" },
  "workflows.completeToken": {
    input: ({ tokenId }) => ({ tokenId, data: { approved: true } }),
    expectation: "refused",
  },
  "traces.list": { input: ({ projectId }) => ({ projectId }), expectation: "refused" },
  "traces.get": { input: ({ projectId, traceId }) => ({ projectId, traceId }), expectation: "refused" },
  "resources.list": { input: ({ projectId }) => ({ projectId }), expectation: "refused" },
  "resources.get": { input: ({ projectId }) => ({ projectId, kind: "form", name: "contact" }), expectation: "refused" },
  "access.createWorkspace": { input: () => ({ name: "Intruder HQ" }), expectation: "creates-own" },
  "access.listWorkspaces": { input: () => ({}), expectation: "sees-nothing" },
  "access.renameWorkspace": {
    input: ({ victim }) => ({ workspaceId: victim.personalWorkspaceId, name: "hijacked" }),
    expectation: "refused",
  },
  "access.listMembers": {
    input: ({ victim }) => ({ workspaceId: victim.personalWorkspaceId }),
    expectation: "refused",
  },
  "access.invite": {
    input: ({ victim }) => ({ workspaceId: victim.personalWorkspaceId, email: "mallory2@example.com", role: "admin" }),
    expectation: "refused",
  },
  "access.listInvitations": {
    input: ({ victim }) => ({ workspaceId: victim.personalWorkspaceId }),
    expectation: "refused",
  },
  "access.revokeInvitation": { input: ({ invitationId }) => ({ invitationId }), expectation: "refused" },
  "access.updateRole": {
    input: ({ victim }) => ({ workspaceId: victim.personalWorkspaceId, accountId: victim.accountId, role: "viewer" }),
    expectation: "refused",
  },
  "access.removeMember": {
    input: ({ victim }) => ({ workspaceId: victim.personalWorkspaceId, accountId: victim.accountId }),
    expectation: "refused",
  },
  "access.auditLog": { input: ({ victim }) => ({ workspaceId: victim.personalWorkspaceId }), expectation: "refused" },
  "agents.list": { input: () => ({}), expectation: "sees-nothing" },
  "agents.list#workspace": {
    input: ({ victim }) => ({ workspaceId: victim.personalWorkspaceId }),
    expectation: "refused",
  },
  "agents.get": { input: ({ agentId }) => ({ agentId }), expectation: "refused" },
  "agents.revoke": { input: ({ agentId }) => ({ agentId }), expectation: "refused" },
  "agents.revokeAll": { input: ({ victim }) => ({ workspaceId: victim.personalWorkspaceId }), expectation: "refused" },
  "access.createFederationPolicy": {
    input: ({ victim, projectId }) => ({
      workspaceId: victim.personalWorkspaceId,
      projectId,
      issuer: "https://token.actions.githubusercontent.com",
      audience: "weft",
      subject: "repo:mallory/*",
      scopes: ["deployments:write"],
    }),
    expectation: "refused",
  },
  "access.listFederationPolicies": {
    input: ({ victim }) => ({ workspaceId: victim.personalWorkspaceId }),
    expectation: "refused",
  },
  "access.deleteFederationPolicy": { input: ({ policyId }) => ({ policyId }), expectation: "refused" },
  "schedules.list": { input: ({ projectId }) => ({ projectId }), expectation: "refused" },
  "schedules.pause": { input: ({ projectId }) => ({ projectId, name: "nightly" }), expectation: "refused" },
  "schedules.resume": { input: ({ projectId }) => ({ projectId, name: "nightly" }), expectation: "refused" },
};

/** Ids of the right shape that name nothing. */
function missingFixture(): VictimFixture {
  const suffix = () => randomUUID().replaceAll("-", "").slice(0, 26);
  return {
    victim: { ...fixture.victim, personalWorkspaceId: `wsp_${suffix()}` },
    projectId: `prj_${suffix()}`,
    deploymentId: `dep_${suffix()}`,
    executionId: `exe_${suffix()}`,
    traceId: randomUUID().replaceAll("-", ""),
    invitationId: `inv_${suffix()}`,
    agentId: `reg_${suffix()}`,
    tokenId: randomTokenId(),
    policyId: `fed_${suffix()}`,
  };
}

function procedurePaths(router: object, prefix: string[] = []): string[] {
  return Object.entries(router).flatMap(([key, value]) => {
    if (isContractProcedure(value)) return [[...prefix, key].join(".")];
    return typeof value === "object" && value !== null ? procedurePaths(value, [...prefix, key]) : [];
  });
}

type Attempt = (typeof attempts)[string];

/**
 * What a project-scoped (federated) credential of another project of B's workspace must get: the
 * workspace's people, agents and policies are FORBIDDEN to it whatever they hold, creating a project
 * is FORBIDDEN, listing the workspace's projects shows its own only, and every other project of the
 * workspace is NOT_FOUND like anyone else's.
 */
function projectScopedExpectation(name: string, attempt: Attempt): "forbidden" | "sees-nothing" | "refused" {
  if (name.startsWith("access.") || name.startsWith("agents.") || name === "projects.create") return "forbidden";
  if (name === "projects.list#workspace") return "sees-nothing";
  if (attempt.expectation === "creates-own") return "forbidden";
  return attempt.expectation;
}

let weft: TestPlatform;
let idp: TestIdentityProvider;
let intruder: TestIdentity;
let projectScoped: string;
let fixture: VictimFixture;

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  weft = await startTestPlatform();
  intruder = await createTestIdentity(weft, "mallory@example.com");
  const victim = await createTestIdentity(weft, "bob@example.com");
  const created = await callRpc(weft.url, "projects.create", { name: "Secret plans" }, { token: victim.credential });
  const projectId = (created.json as { id: string }).id;
  const deployed = await callRpc(
    weft.url,
    "deployments.create",
    {
      projectId,
      manifest: {
        version: 1,
        workflows: [{ name: "echo" }],
        schedules: [{ name: "nightly", workflow: "echo", cron: "0 0 * * *" }],
      },
      bundle: 'export default { workflows: [{ name: "echo", run: async (input) => input }] };',
    },
    { token: victim.credential },
  );
  const deploymentId = (deployed.json as { id: string }).id;
  const ran = await callRpc(
    weft.url,
    "workflows.run",
    { projectId, workflow: "echo", input: { secret: 1 } },
    {
      token: victim.credential,
    },
  );
  const executionId = (ran.json as { executionId: string }).executionId;
  const execution = await callRpc(weft.url, "workflows.getExecution", { executionId }, { token: victim.credential });
  const invited = await callRpc(
    weft.url,
    "access.invite",
    { workspaceId: victim.personalWorkspaceId, email: "carol@example.com", role: "member" },
    { token: victim.credential },
  );
  const agent = await registerEmailAgent(weft, victim.email);
  const tokenId = await storeTestWaitToken(weft.database.db, { executionId, projectId, now: weft.clock.now() });
  const policy = await callRpc(
    weft.url,
    "access.createFederationPolicy",
    {
      workspaceId: victim.personalWorkspaceId,
      projectId,
      issuer: idp.issuer,
      audience: "weft",
      subject: "repo:bob/secret-plans:*",
      scopes: ["projects:read"],
    },
    { token: victim.credential },
  );
  // B's CI credential for another project of the same workspace, with every scope.
  const ciProject = await callRpc(weft.url, "projects.create", { name: "CI target" }, { token: victim.credential });
  const ciProjectId = (ciProject.json as { id: string }).id;
  await callRpc(
    weft.url,
    "access.createFederationPolicy",
    {
      workspaceId: victim.personalWorkspaceId,
      projectId: ciProjectId,
      issuer: idp.issuer,
      audience: "weft",
      subject: "repo:bob/ci:*",
      scopes: ["projects:read", "projects:write", "deployments:read", "deployments:write"],
    },
    { token: victim.credential },
  );
  const now = Math.floor(weft.clock.now().getTime() / 1000);
  const exchanged = await postTokenRequest(weft.url, {
    audience: ciProjectId,
    subjectToken: await idp.sign(
      { iss: idp.issuer, aud: "weft", sub: "repo:bob/ci:ref:refs/heads/main", iat: now, exp: now + 3600 },
      { typ: "JWT" },
    ),
  });
  projectScoped = exchanged.body.access_token as string;
  fixture = {
    victim,
    projectId,
    deploymentId,
    executionId,
    traceId: (execution.json as { traceId: string }).traceId,
    invitationId: (invited.json as { id: string }).id,
    agentId: agent.agentId,
    tokenId,
    policyId: (policy.json as { id: string }).id,
  };
});

afterAll(async () => {
  await weft.stop();
  await idp.close();
});

async function snapshot() {
  const { db } = weft.database;
  return {
    projects: await db.select().from(projects),
    audit: await db.select().from(auditEvents),
    memberships: await db.select().from(memberships),
    invitations: await db.select().from(invitations),
    // `lastUsedAt` moves with every call, in batches; whether a credential is revoked must not.
    credentials: await db
      .select({ id: credentials.id, revokedAt: credentials.revokedAt })
      .from(credentials)
      .orderBy(credentials.id),
    deployments: await db.select().from(deployments),
    executions: await db.select({ id: executions.id }).from(executions),
    schedules: await db.select().from(schedules),
    waitTokens: await db.select().from(waitTokens),
    federationPolicies: await db.select().from(federationPolicies),
  };
}

/** Calls `name` as `token` aimed at B's things and checks the answer reveals and changes nothing of B's. */
async function expectIsolated(
  name: string,
  attempt: Attempt,
  caller: { token: string; accountId: string | undefined },
  expectation: "refused" | "sees-nothing" | "creates-own" | "forbidden",
  secrets: string[],
) {
  const procedure = name.split("#")[0] ?? name;
  const before = await snapshot();
  const input = attempt.input(fixture);
  const result = await callRpc(weft.url, procedure, input, { token: caller.token });
  if (expectation === "refused") {
    expect(result.status).toBe(404);
    expect(result.json).toMatchObject({ code: "NOT_FOUND" });
    // What does not exist reads exactly like what is someone else's.
    const missing = await callRpc(weft.url, procedure, attempt.input(missingFixture()), { token: caller.token });
    expect(missing.text).toBe(result.text);
  } else if (expectation === "forbidden") {
    expect(result.status).toBe(403);
    expect(result.json).toMatchObject({ code: "FORBIDDEN" });
  } else {
    expect(result.status).toBe(200);
  }
  const after = await snapshot();
  if (expectation === "creates-own") {
    const known = new Set(before.audit.map((event) => event.id));
    const added = after.audit.filter((event) => !known.has(event.id));
    expect(added.length).toBeGreaterThan(0);
    for (const event of added) expect(event.actorAccountId).toBe(caller.accountId);
    expect({ ...after, audit: [], memberships: [] }).toEqual({ ...before, audit: [], memberships: [] });
  } else {
    expect(after).toEqual(before);
  }
  // Echoing what the caller sent reveals nothing; anything else of B's would.
  let serialized = JSON.stringify(result.json);
  for (const sent of Object.values(input as Record<string, unknown>)) {
    if (typeof sent === "string") serialized = serialized.replaceAll(sent, "<input>");
  }
  for (const secret of secrets) expect(serialized).not.toContain(secret);
}

function secretsOfB(): string[] {
  return [
    fixture.projectId,
    fixture.deploymentId,
    fixture.executionId,
    fixture.traceId,
    fixture.victim.personalWorkspaceId,
    fixture.victim.email,
    fixture.invitationId,
    fixture.agentId,
    fixture.policyId,
    "carol@example.com",
    "Secret plans",
  ];
}

describe("tenant isolation", () => {
  const procedures = procedurePaths(contract);

  it("has an attempt for every procedure of the contract", () => {
    const covered = new Set(Object.keys(attempts).map((name) => name.split("#")[0]));
    expect(procedures.filter((name) => !covered.has(name))).toEqual([]);
  });

  it.each(Object.entries(attempts))(
    "%s as another user neither reveals nor changes anything",
    async (name, attempt) => {
      expect(procedures).toContain(name.split("#")[0]);
      await expectIsolated(
        name,
        attempt,
        { token: intruder.credential, accountId: intruder.accountId },
        attempt.expectation,
        secretsOfB(),
      );
    },
  );

  it.each(Object.entries(attempts))(
    "%s with a project-scoped credential of another project of the workspace reaches nothing else",
    async (name, attempt) => {
      await expectIsolated(
        name,
        attempt,
        { token: projectScoped, accountId: undefined },
        projectScopedExpectation(name, attempt),
        // Its own project names the workspace they share; nothing else of the workspace may show.
        secretsOfB().filter((secret) => secret !== fixture.victim.personalWorkspaceId),
      );
    },
  );
});
