import {
  callRpc,
  createTeamWorkspace,
  createTestIdentity,
  deployManifest,
  endExecutionsAs,
  joinWorkspace,
  signedInTestPlatform,
  type TestIdentity,
} from "@weft/testing";
import { beforeAll, describe, expect, it } from "vitest";

const signedIn = signedInTestPlatform("owner@studio.test", {
  env: { WEFT_ROLES: "auth,api,ingress" },
  startsAt: new Date("2026-05-08T09:00:00.000Z"),
});
let viewer: TestIdentity;
let workspaceId: string;
let shop: string;
let blog: string;
const failedIds: string[] = [];

const manifest = { version: 1 as const, workflows: [{ name: "echo" }] };

async function run(projectId: string): Promise<string> {
  const started = await callRpc(
    signedIn.weft.url,
    "workflows.run",
    { projectId, workflow: "echo", input: {} },
    { token: signedIn.identity.credential },
  );
  expect(started.status).toBe(200);
  return (started.json as { executionId: string }).executionId;
}

function failed(executionId: string, message: string, finishedAt: string): Promise<void> {
  return endExecutionsAs(signedIn.weft.database.db, [executionId], "failed", { now: new Date(finishedAt), message });
}

beforeAll(async () => {
  viewer = await createTestIdentity(signedIn.weft, "viewer@studio.test");
  workspaceId = await createTeamWorkspace(signedIn.weft, signedIn.identity, "Studio");
  await joinWorkspace(signedIn.weft, { workspaceId, by: signedIn.identity, member: viewer, role: "viewer" });
  const create = async (name: string) =>
    (
      (await signedIn.call("projects.create", { name, workspaceId })).json as {
        id: string;
      }
    ).id;
  shop = await create("shop");
  blog = await create("blog");
  await deployManifest(signedIn.weft, shop, manifest);

  // Two days ago: outside the overview's 24 hours, inside a day timeline.
  signedIn.weft.clock.set(new Date("2026-05-08T10:00:00.000Z"));
  await run(shop);
  signedIn.weft.clock.set(new Date("2026-05-10T10:00:05.000Z"));
  await run(shop);
  await run(shop);
  failedIds.push(await run(shop));
  signedIn.weft.clock.set(new Date("2026-05-10T10:30:00.000Z"));
  await run(shop);
  failedIds.push(await run(shop));
  await failed(failedIds[0] ?? "", "first failure", "2026-05-10T10:01:00.000Z");
  await failed(failedIds[1] ?? "", "second failure", "2026-05-10T10:31:00.000Z");
  signedIn.weft.clock.set(new Date("2026-05-10T13:00:00.000Z"));
});

describe("studio.overview", () => {
  it("shows projects with their active deployment, the last 24 hours by status, failures newest first and usage", async () => {
    const answer = await signedIn.call("studio.overview", { workspaceId });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      workspaceId,
      projects: [
        { id: blog, name: "blog", activeDeployment: null },
        { id: shop, name: "shop", activeDeployment: { number: 1 } },
      ],
      executionsLast24h: { queued: 3, failed: 2 },
      recentFailures: [
        { executionId: failedIds[1], projectId: shop, workflow: "echo", error: { message: "second failure" } },
        { executionId: failedIds[0], projectId: shop, workflow: "echo", error: { message: "first failure" } },
      ],
      usage: { plan: { name: "unlimited" }, used: { executions: 6, projects: 2 } },
    });
    expect(Array.isArray((answer.json as { activeAgents: unknown }).activeAgents)).toBe(true);
  });

  it("shows a viewer the workspace without usage against the plan", async () => {
    const answer = await callRpc(signedIn.weft.url, "studio.overview", { workspaceId }, { token: viewer.credential });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ executionsLast24h: { queued: 3, failed: 2 }, usage: null });
  });

  it("answers NOT_FOUND for another workspace", async () => {
    const stranger = await createTestIdentity(signedIn.weft, "stranger@studio.test");
    expect(
      (await callRpc(signedIn.weft.url, "studio.overview", { workspaceId }, { token: stranger.credential })).status,
    ).toBe(404);
  });
});

describe("studio.executionTimeline", () => {
  const timeline = (input: Record<string, unknown>, who: TestIdentity = signedIn.identity) =>
    callRpc(signedIn.weft.url, "studio.executionTimeline", input, { token: who.credential });

  it("counts a project's executions per minute and a workspace's per hour and per day, by status", async () => {
    const byMinute = await timeline({
      projectId: shop,
      from: "2026-05-10T00:00:00.000Z",
      to: "2026-05-11T00:00:00.000Z",
      bucket: "minute",
    });
    expect(byMinute.json).toEqual({
      bucket: "minute",
      buckets: [
        { start: "2026-05-10T10:00:00.000Z", counts: { queued: 2, failed: 1 } },
        { start: "2026-05-10T10:30:00.000Z", counts: { queued: 1, failed: 1 } },
      ],
    });
    const byHour = await timeline(
      { workspaceId, from: "2026-05-10T00:00:00.000Z", to: "2026-05-11T00:00:00.000Z", bucket: "hour" },
      viewer,
    );
    expect(byHour.json).toEqual({
      bucket: "hour",
      buckets: [{ start: "2026-05-10T10:00:00.000Z", counts: { queued: 3, failed: 2 } }],
    });
    const byDay = await timeline({
      workspaceId,
      from: "2026-05-01T00:00:00.000Z",
      to: "2026-06-01T00:00:00.000Z",
      bucket: "day",
    });
    expect(byDay.json).toEqual({
      bucket: "day",
      buckets: [
        { start: "2026-05-08T00:00:00.000Z", counts: { queued: 1 } },
        { start: "2026-05-10T00:00:00.000Z", counts: { queued: 3, failed: 2 } },
      ],
    });
  });

  it("refuses from after to, too many buckets, both or neither target, and another workspace's project", async () => {
    const day = { from: "2026-05-10T00:00:00.000Z", to: "2026-05-11T00:00:00.000Z" };
    expect((await timeline({ projectId: shop, from: day.to, to: day.from, bucket: "hour" })).status).toBe(400);
    expect(
      (await timeline({ projectId: shop, from: "2026-05-01T00:00:00.000Z", to: day.to, bucket: "minute" })).status,
    ).toBe(400);
    expect((await timeline({ ...day, bucket: "hour" })).status).toBe(400);
    expect((await timeline({ ...day, projectId: shop, workspaceId, bucket: "hour" })).status).toBe(400);
    const stranger = await createTestIdentity(signedIn.weft, "other@studio.test");
    expect((await timeline({ ...day, projectId: shop, bucket: "hour" }, stranger)).status).toBe(404);
  });
});
