import {
  callRpc,
  createTeamWorkspace,
  createTestIdentity,
  joinWorkspace,
  registerEmailAgent,
  registerIdJagAgent,
  type TestAgent,
  type TestIdentity,
  trustingTestPlatform,
} from "@weft/testing";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { credentials } from "../src/db/schema/index.ts";
import { credentialLifetimeMs } from "../src/identity/credentials.ts";
import { startPlatform } from "../src/platform.ts";
import { createLogger } from "../src/shared/logger.ts";
import { createManualTimers } from "../src/shared/timers.ts";

interface AgentView {
  id: string;
  type: string;
  accountId: string;
  email: string;
  agent: { clientId: string | null; issuer: string | null; userAgent: string | null };
  scopes: string[];
  lastUsedAt: string | null;
  status: string;
}

const timers = createManualTimers();
const platform = trustingTestPlatform({
  timers,
  env: { WEFT_ROLES: "auth,api" },
});
let adminPerson: TestIdentity;
let memberPerson: TestIdentity;
let ownerPerson: TestIdentity;
let stranger: TestIdentity;
let teamId: string;
let memberIdJag: TestAgent;
let memberEmailAgent: TestAgent;
let ownerAgent: TestAgent;

const call = (token: string, procedure: string, input: unknown) =>
  callRpc(platform.weft.url, procedure, input, { token });

beforeAll(async () => {
  ownerPerson = await createTestIdentity(platform.weft, "owner@example.com");
  adminPerson = await createTestIdentity(platform.weft, "admin@example.com");
  memberPerson = await createTestIdentity(platform.weft, "member@example.com");
  stranger = await createTestIdentity(platform.weft, "stranger@example.com");
  teamId = await createTeamWorkspace(platform.weft, ownerPerson, "Agents Inc");
  await joinWorkspace(platform.weft, { workspaceId: teamId, by: ownerPerson, member: adminPerson, role: "admin" });
  await joinWorkspace(platform.weft, { workspaceId: teamId, by: ownerPerson, member: memberPerson, role: "member" });
  memberIdJag = await registerIdJagAgent(platform.weft, platform.idp, memberPerson.email);
  memberEmailAgent = await registerEmailAgent(platform.weft, memberPerson.email, { userAgent: "helper-bot/3" });
  ownerAgent = await registerEmailAgent(platform.weft, ownerPerson.email);
  await registerEmailAgent(platform.weft, stranger.email);
});

describe("agents.list and agents.get", () => {
  it("lists the caller's own agents, each with its client", async () => {
    const listed = await call(memberIdJag.credential, "agents.list", {});
    expect(listed.status).toBe(200);
    const page = listed.json as { results: AgentView[]; totalCount: number };
    expect(page.totalCount).toBe(2);
    expect(page.results).toEqual([
      expect.objectContaining({
        id: memberIdJag.agentId,
        type: "agent-provider",
        accountId: memberPerson.accountId,
        email: memberPerson.email,
        agent: { clientId: platform.idp.clientId, issuer: platform.idp.issuer, userAgent: null },
        status: "active",
      }),
      expect.objectContaining({
        id: memberEmailAgent.agentId,
        type: "email-verification",
        agent: { clientId: null, issuer: null, userAgent: "helper-bot/3" },
        status: "active",
      }),
    ]);
  });

  it("with workspaceId, shows an admin every agent of every member, and refuses a member", async () => {
    const listed = await call(adminPerson.credential, "agents.list", { workspaceId: teamId });
    const ids = (listed.json as { results: AgentView[] }).results.map((agent) => agent.id);
    expect(ids.sort()).toEqual([memberIdJag.agentId, memberEmailAgent.agentId, ownerAgent.agentId].sort());
    const refused = await call(memberIdJag.credential, "agents.list", { workspaceId: teamId });
    expect(refused.status).toBe(403);
  });

  it("gets one's own agent and a member's as admin; anyone else's is NOT_FOUND", async () => {
    expect((await call(memberPerson.credential, "agents.get", { agentId: memberIdJag.agentId })).status).toBe(200);
    expect((await call(adminPerson.credential, "agents.get", { agentId: memberIdJag.agentId })).status).toBe(200);
    const foreign = await call(stranger.credential, "agents.get", { agentId: memberIdJag.agentId });
    const missing = await call(stranger.credential, "agents.get", { agentId: `reg_${"0".repeat(26)}` });
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(missing.text);
    // An admin does not reach an owner's agents.
    expect((await call(adminPerson.credential, "agents.get", { agentId: ownerAgent.agentId })).status).toBe(404);
  });

  it("keeps lastUsedAt without a write per request: stored at the next flush", async () => {
    const before = await call(memberPerson.credential, "agents.get", { agentId: memberEmailAgent.agentId });
    expect((before.json as AgentView).lastUsedAt).toBeNull();
    platform.weft.clock.advance(1000);
    const usedAt = platform.weft.clock.now().toISOString();
    await call(memberEmailAgent.credential, "projects.list", {});
    const [unflushed] = await platform.weft.database.db
      .select({ lastUsedAt: credentials.lastUsedAt })
      .from(credentials)
      .where(eq(credentials.registrationId, memberEmailAgent.agentId));
    expect(unflushed?.lastUsedAt).toBeNull();
    timers.fireAll();
    await expect
      .poll(async () => {
        const after = await call(memberPerson.credential, "agents.get", { agentId: memberEmailAgent.agentId });
        return (after.json as AgentView).lastUsedAt;
      })
      .toBe(usedAt);
  });
});

describe("agents.revoke and agents.revokeAll", () => {
  it("revokes one's own agent: refused with invalid_token on its very next request", async () => {
    const agent = await registerEmailAgent(platform.weft, memberPerson.email);
    expect((await call(agent.credential, "projects.list", {})).status).toBe(200);
    const revoked = await call(memberPerson.credential, "agents.revoke", { agentId: agent.agentId });
    expect(revoked.status).toBe(200);
    expect(revoked.json).toMatchObject({ id: agent.agentId, status: "revoked" });
    const next = await call(agent.credential, "projects.list", {});
    expect(next.status).toBe(401);
    expect(next.headers.get("www-authenticate")).toContain('error="invalid_token"');
    const listed = await call(memberPerson.credential, "agents.list", { status: "revoked" });
    expect((listed.json as { results: AgentView[] }).results.map((a) => a.id)).toContain(agent.agentId);
  });

  it("is refused by another process too, once the revoking transaction commits", async () => {
    const second = await startPlatform(
      { ...platform.weft.platform.context.config, port: 0 },
      { clock: platform.weft.clock, database: platform.weft.database, logger: createLogger({ level: "silent" }) },
    );
    try {
      const agent = await registerEmailAgent(platform.weft, memberPerson.email);
      const elsewhere = (procedure: string) => callRpc(second.listenUrl, procedure, {}, { token: agent.credential });
      // The other process has the credential in its cache.
      expect((await elsewhere("projects.list")).status).toBe(200);
      expect((await call(memberPerson.credential, "agents.revoke", { agentId: agent.agentId })).status).toBe(200);
      await expect.poll(async () => (await elsewhere("projects.list")).status, { interval: 20 }).toBe(401);
    } finally {
      await second.stop();
    }
  });

  it("lets an admin revoke a member's agent but not an owner's, nor a stranger anyone's", async () => {
    const agent = await registerEmailAgent(platform.weft, memberPerson.email);
    expect((await call(stranger.credential, "agents.revoke", { agentId: agent.agentId })).status).toBe(404);
    expect((await call(adminPerson.credential, "agents.revoke", { agentId: ownerAgent.agentId })).status).toBe(404);
    expect((await call(ownerAgent.credential, "projects.list", {})).status).toBe(200);
    expect((await call(adminPerson.credential, "agents.revoke", { agentId: agent.agentId })).status).toBe(200);
    expect((await call(agent.credential, "projects.list", {})).status).toBe(401);
  });

  it("revokeAll is for owners and admins, and revokes every other active credential of every member", async () => {
    expect((await call(memberPerson.credential, "agents.revokeAll", { workspaceId: teamId })).status).toBe(403);
    expect((await call(stranger.credential, "agents.revokeAll", { workspaceId: teamId })).status).toBe(404);
    const active = await platform.weft.database.db.select().from(credentials);
    const members = [ownerPerson, adminPerson, memberPerson].map((person) => person.accountId);
    const expected = active.filter(
      (row) =>
        members.includes(row.accountId) &&
        row.revokedAt === null &&
        row.expiresAt > platform.weft.clock.now() &&
        row.id !== adminPerson.credentialId,
    ).length;
    const all = await call(adminPerson.credential, "agents.revokeAll", { workspaceId: teamId });
    expect(all.status).toBe(200);
    expect(all.json).toEqual({ revoked: expected });
    for (const token of [
      memberIdJag.credential,
      memberEmailAgent.credential,
      ownerAgent.credential,
      memberPerson.credential,
    ]) {
      expect((await call(token, "projects.list", {})).status).toBe(401);
    }
    expect((await call(adminPerson.credential, "projects.list", {})).status).toBe(200);
    expect((await call(stranger.credential, "projects.list", {})).status).toBe(200);
  });
});

describe("expiry", () => {
  it("shows an agent past its 30 days as expired", async () => {
    const agent = await registerEmailAgent(platform.weft, stranger.email);
    platform.weft.clock.advance(credentialLifetimeMs);
    const fresh = await createTestIdentity(platform.weft, stranger.email);
    const listed = await call(fresh.credential, "agents.list", { status: "expired" });
    expect((listed.json as { results: AgentView[] }).results.map((a) => a.id)).toContain(agent.agentId);
    const active = await call(fresh.credential, "agents.list", { status: "active" });
    expect((active.json as { results: AgentView[] }).results).toEqual([]);
  });
});
