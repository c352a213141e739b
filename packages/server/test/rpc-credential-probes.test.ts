import { allScopes, type Scope } from "@weft/contract";
import {
  type CallTarget,
  type ContractFixture,
  callRpc,
  createContractFixture,
  createTestIdentity,
  probeCalls,
  procedureMeta,
  procedureOf,
  proceduresWithoutCall,
  revokeTestCredential,
  startTestPlatform,
  type TestIdentity,
  type TestPlatform,
} from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { credentialLifetimeMs } from "../src/identity/credentials.ts";

let weft: TestPlatform;
let fixture: ContractFixture;
/** Per scope, a credential of another workspace's user carrying every scope but that one. */
const lackingOne = new Map<Scope, TestIdentity>();
let before: unknown[];

beforeAll(async () => {
  weft = await startTestPlatform();
  fixture = await createContractFixture(weft);
  for (const missing of allScopes) {
    const scopes = allScopes.filter((scope) => scope !== missing);
    lackingOne.set(
      missing,
      await createTestIdentity(weft, `lacks-${missing.replace(":", "-")}@example.com`, { scopes }),
    );
  }
  before = await ownerView();
});

afterAll(async () => {
  await weft.stop();
});

function targetFor(caller: TestIdentity): CallTarget {
  return { ...fixture.target, callerAccountId: caller.accountId };
}

/** What a call could change in the owner's workspace, as the procedures show it to the owner. */
async function ownerView(): Promise<unknown[]> {
  const token = { token: fixture.owner.credential };
  const { projectId, workspaceId } = fixture.target;
  return Promise.all([
    callRpc(weft.url, "projects.get", { projectId }, token).then((result) => result.json),
    callRpc(weft.url, "deployments.list", { projectId }, token).then((result) => result.json),
    callRpc(weft.url, "workflows.listExecutions", { projectId }, token).then(
      (result) => (result.json as { totalCount: number }).totalCount,
    ),
    callRpc(weft.url, "schedules.list", { projectId }, token).then((result) =>
      (result.json as { results: { name: string; enabled: boolean }[] }).results.map(({ name, enabled }) => ({
        name,
        enabled,
      })),
    ),
    callRpc(weft.url, "access.listMembers", { workspaceId }, token).then((result) => result.json),
    callRpc(weft.url, "access.listInvitations", { workspaceId }, token).then((result) => result.json),
    callRpc(weft.url, "agents.list", { workspaceId }, token).then((result) => result.json),
  ]);
}

/** Every call of the table with every credential that lacks one scope: the scope is what the contract declares. */
const scopeCases = probeCalls().flatMap(([name, call]) => allScopes.map((missing) => ({ name, call, missing })));

describe("a credential lacking one scope", () => {
  it("has a call for every procedure of the contract", () => {
    expect(proceduresWithoutCall()).toEqual([]);
  });

  it.each(scopeCases)("$name without $missing", async ({ name, call, missing }) => {
    const caller = lackingOne.get(missing) as TestIdentity;
    const result = await callRpc(weft.url, procedureOf(name), call.input(targetFor(caller)), {
      token: caller.credential,
    });
    if (procedureMeta(procedureOf(name)).scope === missing) {
      expect(result.status, result.text).toBe(403);
      expect(result.json).toEqual({
        defined: true,
        code: "FORBIDDEN",
        status: 403,
        message: `This credential lacks the ${missing} scope.`,
        data: { missingScope: missing },
      });
      expect(result.headers.get("www-authenticate")).toContain(`scope="${missing}"`);
    } else {
      // The scope check passes; what follows is what any other workspace's user gets.
      expect(result.status, result.text).toBe(call.asOutsider === "refused" ? 404 : 200);
    }
  });

  it("is told of invalid input before the scope it lacks, as the input is checked first", async () => {
    const caller = lackingOne.get("projects:write") as TestIdentity;
    const result = await callRpc(weft.url, "projects.create", { name: 5 }, { token: caller.credential });
    expect(result.status, result.text).toBe(400);
    expect(result.json).toMatchObject({ code: "BAD_REQUEST", data: { issues: [{ path: ["name"] }] } });
  });

  it("left the workspace as it was", async () => {
    expect(await ownerView()).toEqual(before);
  });
});

describe("a revoked credential", () => {
  let revoked: TestIdentity;
  beforeAll(async () => {
    revoked = await createTestIdentity(weft, fixture.owner.email);
    expect((await callRpc(weft.url, "projects.list", {}, { token: revoked.credential })).status).toBe(200);
    await revokeTestCredential(weft, revoked.credentialId, { announce: true });
  });

  it.each(probeCalls())("%s is UNAUTHORIZED", async (name, call) => {
    const result = await callRpc(weft.url, procedureOf(name), call.input(targetFor(revoked)), {
      token: revoked.credential,
    });
    expect(result.status, result.text).toBe(401);
    expect(result.json).toMatchObject({ code: "UNAUTHORIZED" });
  });
});

// Last: it moves the platform's clock past every credential's lifetime.
describe("an expired credential", () => {
  let expired: TestIdentity;
  beforeAll(async () => {
    expired = await createTestIdentity(weft, fixture.owner.email);
    expect((await callRpc(weft.url, "projects.list", {}, { token: expired.credential })).status).toBe(200);
    weft.clock.advance(credentialLifetimeMs);
  });

  it.each(probeCalls())("%s is UNAUTHORIZED", async (name, call) => {
    const result = await callRpc(weft.url, procedureOf(name), call.input(targetFor(expired)), {
      token: expired.credential,
    });
    expect(result.status, result.text).toBe(401);
    expect(result.json).toMatchObject({ code: "UNAUTHORIZED" });
  });
});
