import { randomUUID } from "node:crypto";
import {
  type CallTarget,
  type ContractFixture,
  callRpc,
  contractProcedures,
  createContractFixture,
  createTestIdentity,
  missingCallTarget,
  type ProbeCall,
  postTokenRequest,
  probeCalls,
  procedureOf,
  proceduresWithoutCall,
  startTestIdentityProvider,
  startTestPlatform,
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
  integrations,
  invitations,
  memberships,
  projects,
  schedules,
  waitTokens,
} from "../src/db/schema/index.ts";

/** Ids of the right shape that name nothing, called for by the outsider. */
function missingTarget(): CallTarget {
  return missingCallTarget(outsiderTarget());
}

function outsiderTarget(): CallTarget {
  return { ...fixture.target, callerAccountId: intruder.accountId };
}

type Expectation = ProbeCall["asOutsider"] | "forbidden";

/**
 * What a project-scoped (federated) credential of another project of the fixture's workspace must
 * get: the workspace's people, agents, policies and integrations are FORBIDDEN to it whatever they hold, creating
 * a project is FORBIDDEN, listing the workspace's projects shows its own only, and every other
 * project of the workspace is NOT_FOUND like anyone else's.
 */
function projectScopedExpectation(name: string, call: ProbeCall): Expectation {
  const management = ["access.", "agents.", "integrations.", "billing."];
  const wholeWorkspace = [
    "projects.create",
    "studio.overview",
    "studio.approvals",
    "studio.executionTimeline#workspace",
  ];
  if (management.some((prefix) => name.startsWith(prefix)) || wholeWorkspace.includes(name)) return "forbidden";
  if (name === "projects.list#workspace") return "sees-nothing";
  if (call.asOutsider === "creates-own") return "forbidden";
  return call.asOutsider;
}

let weft: TestPlatform;
let idp: TestIdentityProvider;
let intruder: TestIdentity;
let fixture: ContractFixture;
/** A credential of the fixture's workspace, confined to another project of it (its CI's). */
let projectScoped: string;

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  // The issuer serves on loopback: the operator's exemption lets the platform fetch its keys.
  weft = await startTestPlatform({ env: { WEFT_SANDBOX_EGRESS_ALLOW: new URL(idp.issuer).host } });
  intruder = await createTestIdentity(weft, "mallory@example.com");
  fixture = await createContractFixture(weft);
  const token = { token: fixture.owner.credential };
  const { workspaceId } = fixture.target;
  const ciProject = await callRpc(weft.url, "projects.create", { name: "CI target", workspaceId }, token);
  const ciProjectId = (ciProject.json as { id: string }).id;
  await callRpc(
    weft.url,
    "access.createFederationPolicy",
    {
      workspaceId,
      projectId: ciProjectId,
      issuer: idp.issuer,
      audience: "weft",
      subject: "repo:team/ci:*",
      scopes: ["projects:read", "projects:write", "deployments:read", "deployments:write"],
    },
    token,
  );
  const now = Math.floor(weft.clock.now().getTime() / 1000);
  const exchanged = await postTokenRequest(weft.url, {
    audience: ciProjectId,
    subjectToken: await idp.sign(
      {
        iss: idp.issuer,
        aud: "weft",
        sub: "repo:team/ci:ref:refs/heads/main",
        jti: randomUUID(),
        iat: now,
        exp: now + 3600,
      },
      { typ: "JWT" },
    ),
  });
  projectScoped = exchanged.body.access_token as string;
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
    integrations: await db.select().from(integrations),
  };
}

async function expectIsolated(
  name: string,
  call: ProbeCall,
  caller: { token: string; accountId: string | undefined },
  expectation: Expectation,
  secrets: string[],
): Promise<void> {
  const procedure = procedureOf(name);
  const before = await snapshot();
  const input = call.input(outsiderTarget());
  const result = await callRpc(weft.url, procedure, input, { token: caller.token });
  if (expectation === "refused") {
    expect(result.status).toBe(404);
    expect(result.json).toMatchObject({ code: "NOT_FOUND" });
    // What does not exist reads exactly like what is someone else's.
    const missing = await callRpc(weft.url, procedure, call.input(missingTarget()), { token: caller.token });
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
  // Echoing what the caller sent reveals nothing; anything else of the workspace's would.
  let serialized = JSON.stringify(result.json);
  for (const sent of Object.values(input as Record<string, unknown>)) {
    if (typeof sent === "string") serialized = serialized.replaceAll(sent, "<input>");
  }
  for (const secret of secrets) expect(serialized).not.toContain(secret);
}

describe("tenant isolation", () => {
  const procedures = contractProcedures();

  it("has a call for every procedure of the contract", () => {
    expect(proceduresWithoutCall()).toEqual([]);
  });

  it.each(probeCalls())("%s as another user neither reveals nor changes anything", async (name, call) => {
    expect(procedures).toContain(procedureOf(name));
    await expectIsolated(
      name,
      call,
      { token: intruder.credential, accountId: intruder.accountId },
      call.asOutsider,
      fixture.privateNames,
    );
  });

  it.each(probeCalls())(
    "%s with a project-scoped credential of another project of the workspace reaches nothing else",
    async (name, call) => {
      await expectIsolated(
        name,
        call,
        { token: projectScoped, accountId: undefined },
        projectScopedExpectation(name, call),
        // Its own project names the workspace they share; nothing else of the workspace may show.
        fixture.privateNames.filter((secret) => secret !== fixture.target.workspaceId),
      );
    },
  );
});
