import { randomUUID } from "node:crypto";
import {
  type CallTarget,
  type ContractFixture,
  callRpc,
  contractCalls,
  contractProcedures,
  createContractFixture,
  createTestIdentity,
  procedureOf,
  proceduresWithoutCall,
  randomTokenId,
  startTestPlatform,
  type TestIdentity,
  type TestPlatform,
} from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  auditEvents,
  credentials,
  deployments,
  executions,
  invitations,
  memberships,
  projects,
  schedules,
  waitTokens,
} from "../src/db/schema/index.ts";

/** Ids of the right shape that name nothing. */
function missingTarget(): CallTarget {
  const suffix = () => randomUUID().replaceAll("-", "").slice(0, 26);
  return {
    ...outsiderTarget(),
    workspaceId: `wsp_${suffix()}`,
    projectId: `prj_${suffix()}`,
    deploymentId: `dep_${suffix()}`,
    executionId: `exe_${suffix()}`,
    traceId: randomUUID().replaceAll("-", ""),
    invitationId: `inv_${suffix()}`,
    agentId: `reg_${suffix()}`,
    tokenId: randomTokenId(),
  };
}

function outsiderTarget(): CallTarget {
  return { ...fixture.target, callerAccountId: intruder.accountId };
}

let weft: TestPlatform;
let intruder: TestIdentity;
let fixture: ContractFixture;

beforeAll(async () => {
  weft = await startTestPlatform();
  intruder = await createTestIdentity(weft, "mallory@example.com");
  fixture = await createContractFixture(weft);
});

afterAll(async () => {
  await weft.stop();
});

describe("tenant isolation", () => {
  const procedures = contractProcedures();

  it("has a call for every procedure of the contract", () => {
    expect(proceduresWithoutCall()).toEqual([]);
  });

  it.each(Object.entries(contractCalls))(
    "%s as another user neither reveals nor changes anything",
    async (name, call) => {
      const procedure = procedureOf(name);
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
      };
      const input = call.input(outsiderTarget());
      const result = await callRpc(weft.url, procedure, input, { token: intruder.credential });
      if (call.asOutsider === "refused") {
        expect(result.status).toBe(404);
        expect(result.json).toMatchObject({ code: "NOT_FOUND" });
        // What does not exist reads exactly like what is someone else's.
        const missing = await callRpc(weft.url, procedure, call.input(missingTarget()), {
          token: intruder.credential,
        });
        expect(missing.text).toBe(result.text);
      } else {
        expect(result.status).toBe(200);
      }
      if (call.asOutsider === "creates-own") {
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
      for (const secret of fixture.privateNames) {
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
    },
  );
});
