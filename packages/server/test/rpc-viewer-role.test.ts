import {
  type ContractFixture,
  callRpc,
  contractProcedures,
  createContractFixture,
  probeCalls,
  procedureOf,
  proceduresWithoutCall,
  startTestPlatform,
  type TestPlatform,
} from "@weft/testing";
import { eq } from "drizzle-orm";
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
  workspaces,
} from "../src/db/schema/index.ts";

let weft: TestPlatform;
let team: ContractFixture;

/** Everything of the team workspace a write could change. */
async function teamState() {
  const db = weft.database.db;
  return {
    workspace: await db.select().from(workspaces).where(eq(workspaces.id, team.target.workspaceId)),
    memberships: await db.select().from(memberships).where(eq(memberships.workspaceId, team.target.workspaceId)),
    invitations: await db.select().from(invitations).where(eq(invitations.workspaceId, team.target.workspaceId)),
    projects: await db.select().from(projects).where(eq(projects.workspaceId, team.target.workspaceId)),
    deployments: await db.select({ id: deployments.id }).from(deployments).orderBy(deployments.id),
    executions: await db.select({ id: executions.id }).from(executions).orderBy(executions.id),
    schedules: await db.select().from(schedules).where(eq(schedules.projectId, team.target.projectId)),
    waitTokens: await db.select().from(waitTokens).where(eq(waitTokens.projectId, team.target.projectId)),
    credentials: await db
      .select({ id: credentials.id, revokedAt: credentials.revokedAt })
      .from(credentials)
      .orderBy(credentials.id),
    audit: await db
      .select({ id: auditEvents.id })
      .from(auditEvents)
      .where(eq(auditEvents.workspaceId, team.target.workspaceId))
      .orderBy(auditEvents.id),
  };
}

beforeAll(async () => {
  weft = await startTestPlatform();
  team = await createContractFixture(weft);
});

afterAll(async () => {
  await weft.stop();
});

describe("a viewer reads and never writes", () => {
  const procedures = contractProcedures();

  it("has a call for every procedure of the contract", () => {
    expect(proceduresWithoutCall()).toEqual([]);
  });

  it.each(probeCalls())("%s", async (name, call) => {
    const procedure = procedureOf(name);
    expect(procedures).toContain(procedure);
    const before = await teamState();
    const result = await callRpc(
      weft.url,
      procedure,
      call.input({ ...team.target, callerAccountId: team.viewer.accountId }),
      {
        token: team.viewer.credential,
      },
    );
    const expected = {
      reads: [200, undefined],
      "own-account": [200, undefined],
      refused: [403, "FORBIDDEN"],
      hidden: [404, "NOT_FOUND"],
    }[call.asViewer];
    expect(result.status, result.text).toBe(expected[0]);
    if (expected[1] !== undefined) expect(result.json).toMatchObject({ code: expected[1] });
    expect(await teamState()).toEqual(before);
  });
});
