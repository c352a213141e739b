import {
  basicAuthorization,
  callRpc,
  callRpcAs,
  createTestIdentity,
  deployManifest,
  startTestPlatform,
  type TestIdentity,
  type TestPlatform,
} from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let weft: TestPlatform;
let ada: TestIdentity;
let bob: TestIdentity;
let projectId: string;
let emptyProjectId: string;

const schema = { type: "object", properties: { email: { type: "string" } }, required: ["email"] };

async function createProject(identity: TestIdentity, name: string): Promise<string> {
  const created = await callRpcAs(weft, identity, "projects.create", { name });
  expect(created.status).toBe(200);
  return (created.json as { id: string }).id;
}

beforeAll(async () => {
  weft = await startTestPlatform();
  ada = await createTestIdentity(weft, "ada@example.com");
  bob = await createTestIdentity(weft, "bob@example.com");
  projectId = await createProject(ada, "Shop");
  emptyProjectId = await createProject(ada, "Empty");
  await deployManifest(weft, projectId, {
    version: 1,
    workflows: [{ name: "fulfil", inputSchema: { type: "object" } }, { name: "notify" }],
    forms: [
      {
        name: "contact",
        workflow: "notify",
        title: "Contact us",
        schema,
        basicAuth: { username: "ann", password: "open sesame" },
      },
      { name: "staff", workflow: "notify", visibility: "internal", schema },
    ],
    webhooks: [{ name: "orders", workflow: "fulfil", secret: { header: "X-Shop-Secret", value: "hook-secret-value" } }],
  });
});
afterAll(() => weft.stop());

describe("resources namespace", () => {
  it("lists the active deployment's workflows, forms and webhooks with their public addresses, no secrets", async () => {
    const listed = await callRpcAs(weft, ada, "resources.list", { projectId });
    expect(listed.status).toBe(200);
    const page = listed.json as { totalCount: number; results: Record<string, unknown>[] };
    expect(page.totalCount).toBe(5);
    expect(page.results.map((resource) => [resource.kind, resource.name])).toEqual([
      ["workflow", "fulfil"],
      ["workflow", "notify"],
      ["form", "contact"],
      ["form", "staff"],
      ["webhook", "orders"],
    ]);
    expect(page.results[2]).toEqual({
      kind: "form",
      name: "contact",
      deploymentId: expect.stringMatching(/^dep_/),
      workflow: "notify",
      title: "Contact us",
      description: null,
      visibility: "public",
      disabled: false,
      basicAuth: true,
      schema,
      urls: {
        page: `${weft.url}/triggers/forms/${projectId}/contact`,
        programmatic: `${weft.url}/forms/contact?projectId=${projectId}`,
      },
    });
    expect(page.results[3]).toMatchObject({ visibility: "internal", urls: { page: null, programmatic: null } });
    expect(page.results[4]).toMatchObject({
      secretHeader: "x-shop-secret",
      urls: { webhook: `${weft.url}/triggers/webhooks/${projectId}/orders` },
    });
    const text = JSON.stringify(listed.json);
    for (const secret of ["open sesame", "hook-secret-value", "passwordHash", "valueHash"]) {
      expect(text).not.toContain(secret);
    }
  });

  it("gives addresses that work", async () => {
    const form = await callRpcAs(weft, ada, "resources.get", { projectId, kind: "form", name: "contact" });
    const urls = (form.json as { urls: { page: string; programmatic: string } }).urls;
    const authorization = basicAuthorization("ann", "open sesame");
    expect((await fetch(urls.page, { headers: { authorization } })).status).toBe(200);
    const submitted = await fetch(urls.programmatic, {
      method: "POST",
      headers: { authorization, "content-type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com" }),
    });
    expect(submitted.status).toBe(202);
    const hook = await callRpcAs(weft, ada, "resources.get", { projectId, kind: "webhook", name: "orders" });
    const called = await fetch((hook.json as { urls: { webhook: string } }).urls.webhook, {
      method: "POST",
      headers: { "x-shop-secret": "hook-secret-value" },
      body: "{}",
    });
    expect(called.status).toBe(202);
  });

  it("filters by kind and pages with opaque cursors", async () => {
    const forms = await callRpcAs(weft, ada, "resources.list", { projectId, kind: "form" });
    expect((forms.json as { results: { name: string }[] }).results.map((resource) => resource.name)).toEqual([
      "contact",
      "staff",
    ]);
    const first = await callRpcAs(weft, ada, "resources.list", { projectId, pagination: { first: 2 } });
    const firstPage = first.json as {
      pagination: { hasNextPage: boolean; hasPreviousPage: boolean; endCursor: string };
      results: { name: string }[];
    };
    expect(firstPage.results.map((resource) => resource.name)).toEqual(["fulfil", "notify"]);
    expect(firstPage.pagination).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const second = await callRpcAs(weft, ada, "resources.list", {
      projectId,
      pagination: { first: 2, after: firstPage.pagination.endCursor },
    });
    const secondPage = second.json as {
      pagination: { hasPreviousPage: boolean; startCursor: string };
      results: { name: string }[];
    };
    expect(secondPage.results.map((resource) => resource.name)).toEqual(["contact", "staff"]);
    expect(secondPage.pagination.hasPreviousPage).toBe(true);
    const back = await callRpcAs(weft, ada, "resources.list", {
      projectId,
      pagination: { last: 2, before: secondPage.pagination.startCursor },
    });
    expect((back.json as { results: { name: string }[] }).results.map((resource) => resource.name)).toEqual([
      "fulfil",
      "notify",
    ]);
    const bad = await callRpcAs(weft, ada, "resources.list", { projectId, pagination: { after: "nope" } });
    expect(bad.status).toBe(400);
  });

  it("answers an empty list before any deployment, and NOT_FOUND for an unknown definition", async () => {
    const empty = await callRpcAs(weft, ada, "resources.list", { projectId: emptyProjectId });
    expect(empty.json).toMatchObject({ totalCount: 0, results: [] });
    const missing = await callRpcAs(weft, ada, "resources.get", { projectId, kind: "webhook", name: "contact" });
    expect(missing.status).toBe(404);
  });

  it("hides other people's projects and needs projects:read", async () => {
    const foreign = await callRpcAs(weft, bob, "resources.list", { projectId });
    expect(foreign.status).toBe(404);
    const foreignGet = await callRpcAs(weft, bob, "resources.get", { projectId, kind: "form", name: "contact" });
    expect(foreignGet.status).toBe(404);
    const narrow = await createTestIdentity(weft, "ada@example.com", { scopes: ["deployments:read"] });
    const refused = await callRpcAs(weft, narrow, "resources.list", { projectId });
    expect(refused.status).toBe(403);
    const anonymous = await callRpc(weft.url, "resources.list", { projectId });
    expect(anonymous.status).toBe(401);
  });
});

describe("workflows.list", () => {
  it("answers the standard envelope, by name, and pages with opaque cursors", async () => {
    const list = (pagination?: Record<string, unknown>) =>
      callRpcAs(weft, ada, "workflows.list", { projectId, ...(pagination ? { pagination } : {}) });
    const whole = await list();
    expect(whole.status).toBe(200);
    expect(whole.json).toMatchObject({
      pagination: { hasNextPage: false, hasPreviousPage: false },
      results: [
        { name: "fulfil", deploymentNumber: 1 },
        { name: "notify", deploymentNumber: 1 },
      ],
      totalCount: 2,
    });
    const first = (await list({ first: 1 })).json as {
      pagination: { hasNextPage: boolean; endCursor: string };
      results: { name: string }[];
    };
    expect(first.results.map((workflow) => workflow.name)).toEqual(["fulfil"]);
    expect(first.pagination.hasNextPage).toBe(true);
    const second = (await list({ first: 1, after: first.pagination.endCursor })).json as {
      pagination: { hasNextPage: boolean; hasPreviousPage: boolean };
      results: { name: string }[];
    };
    expect(second.results.map((workflow) => workflow.name)).toEqual(["notify"]);
    expect(second.pagination).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect((await list({ after: "nope" })).status).toBe(400);
    expect((await list({ first: 201 })).status).toBe(400);
  });

  it("answers an empty page without cursors before any deployment", async () => {
    const empty = await callRpcAs(weft, ada, "workflows.list", { projectId: emptyProjectId });
    expect(empty.json).toEqual({
      pagination: { hasNextPage: false, hasPreviousPage: false },
      results: [],
      totalCount: 0,
    });
  });
});
