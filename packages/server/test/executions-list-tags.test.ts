import { maxRunTagLength, maxRunTags } from "@weft/contract";
import { bundleConfig, signedInTestPlatform } from "@weft/testing";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * `workflows.listExecutions {tags}` over HTTP against a started platform: the executions holding
 * every one of the tags, in any order, and a list of tags out of bounds refused naming the field.
 * The runs are delayed, so they stay queued and nothing but the filter decides what is listed.
 */

const signedIn = signedInTestPlatform("list-tags@example.com");
let projectId: string;

const config = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({ workflows: [workflow({ name: "echo", run: async (input: unknown) => input })] });
`;

interface Page {
  totalCount: number;
  results: { id: string; tags: string[] }[];
}

async function run(tags: string[]): Promise<string> {
  const ran = await signedIn.call<{ executionId: string }>("workflows.run", {
    projectId,
    workflow: "echo",
    input: {},
    delay: "1h",
    tags,
  });
  expect(ran.status).toBe(200);
  return ran.json.executionId;
}

async function listed(tags: string[]): Promise<string[]> {
  const page = await signedIn.call<Page>("workflows.listExecutions", { projectId, tags });
  expect(page.status).toBe(200);
  expect(page.json.totalCount).toBe(page.json.results.length);
  return page.json.results.map((execution) => execution.id);
}

const ids: Record<string, string> = {};

beforeAll(async () => {
  projectId = (await signedIn.call<{ id: string }>("projects.create", { name: "Tagged" })).json.id;
  const deployed = await signedIn.call("deployments.create", {
    projectId,
    manifest: { version: 1, workflows: [{ name: "echo" }] },
    bundle: await bundleConfig(config),
  });
  expect(deployed.status).toBe(200);
  ids.nightlyEu = await run(["nightly", "region:eu"]);
  ids.nightlyUs = await run(["nightly", "region:us"]);
  ids.nightlyEuBackfill = await run(["backfill", "region:eu", "nightly"]);
  ids.untagged = await run([]);
});

describe("workflows.listExecutions by tags", () => {
  it("lists the executions holding every tag given, whatever their order", async () => {
    expect(await listed(["nightly"])).toEqual([ids.nightlyEu, ids.nightlyUs, ids.nightlyEuBackfill]);
    expect(await listed(["nightly", "region:eu"])).toEqual([ids.nightlyEu, ids.nightlyEuBackfill]);
    expect(await listed(["region:eu", "nightly"])).toEqual([ids.nightlyEu, ids.nightlyEuBackfill]);
    expect(await listed(["region:eu", "backfill", "nightly"])).toEqual([ids.nightlyEuBackfill]);
    expect(await listed(["region:us", "backfill"])).toEqual([]);
    // A tag given twice is still one condition.
    expect(await listed(["region:us", "region:us"])).toEqual([ids.nightlyUs]);
  });

  it("combines the tags with the other filters", async () => {
    const page = await signedIn.call<Page>("workflows.listExecutions", {
      projectId,
      workflow: "echo",
      status: "queued",
      tags: ["nightly", "region:us"],
    });
    expect(page.json.results.map((execution) => execution.id)).toEqual([ids.nightlyUs]);
  });

  it.each([
    ["more tags than a run may hold", Array.from({ length: maxRunTags + 1 }, (_, i) => `t${i}`), ["tags"]],
    ["no tag", [], ["tags"]],
    ["a tag over the length limit", ["nightly", "x".repeat(maxRunTagLength + 1)], ["tags", 1]],
    ["a tag with a space", ["not a tag"], ["tags", 0]],
  ])("refuses %s with BAD_REQUEST naming the field", async (_what, tags, path) => {
    const refused = await signedIn.call("workflows.listExecutions", { projectId, tags });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      code: "BAD_REQUEST",
      data: { issues: expect.arrayContaining([expect.objectContaining({ path })]) },
    });
  });
});
