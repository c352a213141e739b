import { randomUUID } from "node:crypto";
import { isContractProcedure } from "@orpc/contract";
import { contract } from "@weft/contract";
import {
  callRpc,
  createTestIdentity,
  randomTokenId,
  registerEmailAgent,
  startTestPlatform,
  storeTestWaitToken,
  type TestIdentity,
  type TestPlatform,
} from "@weft/testing";
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
  "schedules.list": { input: ({ projectId }) => ({ projectId }), expectation: "refused" },
  "schedules.pause": { input: ({ projectId }) => ({ projectId, name: "nightly" }), expectation: "refused" },
  "schedules.resume": { input: ({ projectId }) => ({ projectId, name: "nightly" }), expectation: "refused" },
  "integrations.list": { input: ({ projectId }) => ({ projectId }), expectation: "refused" },
  "integrations.get": { input: ({ projectId }) => ({ projectId, name: "stripe" }), expectation: "refused" },
  "integrations.create": {
    input: ({ projectId }) => ({ projectId, name: "intruder", kind: "secret", secrets: { value: "planted" } }),
    expectation: "refused",
  },
  "integrations.update": {
    input: ({ projectId }) => ({ projectId, name: "stripe", secrets: { value: "planted" } }),
    expectation: "refused",
  },
  "integrations.delete": { input: ({ projectId }) => ({ projectId, name: "stripe" }), expectation: "refused" },
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
  };
}

function procedurePaths(router: object, prefix: string[] = []): string[] {
  return Object.entries(router).flatMap(([key, value]) => {
    if (isContractProcedure(value)) return [[...prefix, key].join(".")];
    return typeof value === "object" && value !== null ? procedurePaths(value, [...prefix, key]) : [];
  });
}

/** The value of B's integration: no answer to A may carry it, nor its hint. */
const victimSecret = "sk_victim_0123456789";

let weft: TestPlatform;
let intruder: TestIdentity;
let fixture: VictimFixture;

beforeAll(async () => {
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
  await callRpc(
    weft.url,
    "integrations.create",
    { projectId, name: "stripe", kind: "secret", secrets: { value: victimSecret } },
    { token: victim.credential },
  );
  const agent = await registerEmailAgent(weft, victim.email);
  const tokenId = await storeTestWaitToken(weft.database.db, { executionId, projectId, now: weft.clock.now() });
  fixture = {
    victim,
    projectId,
    deploymentId,
    executionId,
    traceId: (execution.json as { traceId: string }).traceId,
    invitationId: (invited.json as { id: string }).id,
    agentId: agent.agentId,
    tokenId,
  };
});

afterAll(async () => {
  await weft.stop();
});

describe("tenant isolation", () => {
  const procedures = procedurePaths(contract);

  it("has an attempt for every procedure of the contract", () => {
    const covered = new Set(Object.keys(attempts).map((name) => name.split("#")[0]));
    expect(procedures.filter((name) => !covered.has(name))).toEqual([]);
  });

  it.each(Object.entries(attempts))(
    "%s as another user neither reveals nor changes anything",
    async (name, attempt) => {
      const procedure = name.split("#")[0] ?? name;
      expect(procedures).toContain(procedure);
      const before = {
        projects: await weft.database.db.select().from(projects),
        audit: await weft.database.db.select().from(auditEvents),
        memberships: await weft.database.db.select().from(memberships),
        invitations: await weft.database.db.select().from(invitations),
        // `lastUsedAt` moves with every call, in batches; whether a credential is revoked must not.
        credentials: await weft.database.db
          .select({ id: credentials.id, revokedAt: credentials.revokedAt })
          .from(credentials)
          .orderBy(credentials.id),
        deployments: await weft.database.db.select().from(deployments),
        executions: await weft.database.db.select({ id: executions.id }).from(executions),
        schedules: await weft.database.db.select().from(schedules),
        waitTokens: await weft.database.db.select().from(waitTokens),
        integrations: await weft.database.db.select().from(integrations),
      };
      const input = attempt.input(fixture);
      const result = await callRpc(weft.url, procedure, input, { token: intruder.credential });
      if (attempt.expectation === "refused") {
        expect(result.status).toBe(404);
        expect(result.json).toMatchObject({ code: "NOT_FOUND" });
        // What does not exist reads exactly like what is someone else's.
        const missing = await callRpc(weft.url, procedure, attempt.input(missingFixture()), {
          token: intruder.credential,
        });
        expect(missing.text).toBe(result.text);
      } else {
        expect(result.status).toBe(200);
      }
      if (attempt.expectation === "creates-own") {
        const known = new Set(before.audit.map((event) => event.id));
        const added = (await weft.database.db.select().from(auditEvents)).filter((event) => !known.has(event.id));
        expect(added.length).toBeGreaterThan(0);
        for (const event of added) expect(event.actorAccountId).toBe(intruder.accountId);
      } else {
        expect(await weft.database.db.select().from(auditEvents)).toEqual(before.audit);
        expect(await weft.database.db.select().from(memberships)).toEqual(before.memberships);
      }
      // Echoing what the caller sent reveals nothing; anything else of B's would.
      let serialized = JSON.stringify(result.json);
      for (const sent of Object.values(input as Record<string, unknown>)) {
        if (typeof sent === "string") serialized = serialized.replaceAll(sent, "<input>");
      }
      for (const secret of [
        fixture.projectId,
        fixture.deploymentId,
        fixture.executionId,
        fixture.traceId,
        fixture.victim.personalWorkspaceId,
        fixture.victim.email,
        fixture.invitationId,
        fixture.agentId,
        "carol@example.com",
        "Secret plans",
        victimSecret,
        "••••6789",
      ]) {
        expect(serialized).not.toContain(secret);
      }
      expect(await weft.database.db.select().from(projects)).toEqual(before.projects);
      expect(await weft.database.db.select().from(deployments)).toEqual(before.deployments);
      expect(await weft.database.db.select().from(invitations)).toEqual(before.invitations);
      expect(
        await weft.database.db
          .select({ id: credentials.id, revokedAt: credentials.revokedAt })
          .from(credentials)
          .orderBy(credentials.id),
      ).toEqual(before.credentials);
      expect(await weft.database.db.select({ id: executions.id }).from(executions)).toEqual(before.executions);
      expect(await weft.database.db.select().from(schedules)).toEqual(before.schedules);
      expect(await weft.database.db.select().from(waitTokens)).toEqual(before.waitTokens);
      expect(await weft.database.db.select().from(integrations)).toEqual(before.integrations);
    },
  );
});
