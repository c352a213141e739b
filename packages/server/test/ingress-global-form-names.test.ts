import {
  callRpc,
  createTestIdentity,
  executionCount,
  startTestPlatform,
  type TestIdentity,
  type TestPlatform,
} from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let weft: TestPlatform;
let ann: TestIdentity;
let bob: TestIdentity;
let annProject: string;
let bobProject: string;

const schema = { type: "object", properties: { email: { type: "string" } }, required: ["email"] };

function manifestWith(forms: { name: string; globalName?: boolean }[]) {
  return {
    version: 1,
    workflows: [{ name: "onboard" }],
    forms: forms.map((form) => ({ ...form, workflow: "onboard", schema })),
  };
}

async function deploy(who: TestIdentity, projectId: string, forms: { name: string; globalName?: boolean }[]) {
  return callRpc(
    weft.url,
    "deployments.create",
    { projectId, manifest: manifestWith(forms), bundle: "export default {};" },
    { token: who.credential },
  );
}

function submit(path: string): Promise<Response> {
  return fetch(`${weft.url}/forms/${path}`, {
    method: "POST",
    body: JSON.stringify({ email: "ada@example.com" }),
    headers: { "content-type": "application/json" },
  });
}

async function createProject(who: TestIdentity, name: string): Promise<string> {
  const created = await callRpc(weft.url, "projects.create", { name }, { token: who.credential });
  return (created.json as { id: string }).id;
}

beforeAll(async () => {
  weft = await startTestPlatform();
  ann = await createTestIdentity(weft, "ann@example.com");
  bob = await createTestIdentity(weft, "bob@example.com");
  annProject = await createProject(ann, "Ann's site");
  bobProject = await createProject(bob, "Bob's site");
});
afterAll(() => weft.stop());

describe("programmatic form names without projectId", () => {
  it("never resolve to another tenant's form that merely has a unique name", async () => {
    expect((await deploy(bob, bobProject, [{ name: "feedback" }])).status).toBe(200);
    const response = await submit("feedback");
    expect(response.status).toBe(400);
    const refusal = (await response.json()) as { error: string; message: string };
    expect(refusal).toMatchObject({ error: "project_required" });
    expect(refusal.message).toContain("?projectId=");
    expect(await executionCount(weft, bobProject)).toBe(0);
    expect((await submit(`feedback?projectId=${bobProject}`)).status).toBe(202);
  });

  it("resolve to the form that claims the name instance-wide", async () => {
    expect((await deploy(ann, annProject, [{ name: "contact", globalName: true }])).status).toBe(200);
    const response = await submit("contact");
    expect(response.status).toBe(202);
    expect(await executionCount(weft, annProject)).toBe(1);
  });

  it("are refused at deploy while another project claims the name, changing nothing", async () => {
    const before = await callRpc(weft.url, "deployments.list", { projectId: bobProject }, { token: bob.credential });
    const refused = await deploy(bob, bobProject, [{ name: "feedback" }, { name: "contact", globalName: true }]);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      code: "BAD_REQUEST",
      data: { issues: [{ path: ["manifest", "forms", 1, "globalName"], message: expect.stringContaining("contact") }] },
    });
    const after = await callRpc(weft.url, "deployments.list", { projectId: bobProject }, { token: bob.credential });
    expect(after.json).toEqual(before.json);
    // Bob may still have a form of that name; it is reached with his projectId only.
    expect((await deploy(bob, bobProject, [{ name: "feedback" }, { name: "contact" }])).status).toBe(200);
    expect((await submit("contact")).status).toBe(202);
    expect(await executionCount(weft, annProject)).toBe(2);
    expect(await executionCount(weft, bobProject)).toBe(1);
  });

  it("are released when the form leaves the active deployment, and a rollback cannot take them back", async () => {
    expect((await deploy(ann, annProject, [{ name: "contact" }])).status).toBe(200);
    const unclaimed = await submit("contact");
    expect(unclaimed.status).toBe(400);
    expect(await unclaimed.json()).toMatchObject({ error: "project_required" });

    expect((await deploy(bob, bobProject, [{ name: "contact", globalName: true }])).status).toBe(200);
    expect((await submit("contact")).status).toBe(202);
    expect(await executionCount(weft, bobProject)).toBe(2);

    const annFirst = await callRpc(
      weft.url,
      "deployments.list",
      { projectId: annProject, pagination: { first: 1 } },
      { token: ann.credential },
    );
    const [first] = (annFirst.json as { results: { id: string }[] }).results;
    const rollback = await callRpc(
      weft.url,
      "deployments.activate",
      { projectId: annProject, deploymentId: first?.id },
      { token: ann.credential },
    );
    expect(rollback.status).toBe(400);
    expect(rollback.json).toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("instance-wide") });
    expect((await submit("contact")).status).toBe(202);
    expect(await executionCount(weft, bobProject)).toBe(3);
  });

  it("are released when the project is deleted", async () => {
    const deleted = await callRpc(weft.url, "projects.delete", { projectId: bobProject }, { token: bob.credential });
    expect(deleted.status).toBe(200);
    expect((await deploy(ann, annProject, [{ name: "contact", globalName: true }])).status).toBe(200);
    expect((await submit("contact")).status).toBe(202);
  });
});
