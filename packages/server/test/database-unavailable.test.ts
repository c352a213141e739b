import {
  callRpc,
  createTestIdentity,
  deployManifest,
  startTcpProxy,
  startTestPlatform,
  type TcpProxy,
  type TestPlatform,
  testServerUrl,
} from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Found by the fault test: during `pg_ctl restart -m immediate` webhooks, forms and RPC calls were
// answered 500, where a refusal that the client should send again is a 503 with Retry-After.
const serverUrl = testServerUrl();
const projectId = "prj_01jdatabaseunavailable000000";
let proxy: TcpProxy;
let weft: TestPlatform;
let token: string;

beforeAll(async () => {
  if (serverUrl === undefined) return;
  proxy = await startTcpProxy(serverUrl);
  weft = await startTestPlatform({ databaseServer: proxy.url });
  ({ credential: token } = await createTestIdentity(weft, "unavailable@example.com"));
  await deployManifest(weft, projectId, {
    version: 1,
    workflows: [{ name: "ingest" }],
    webhooks: [{ name: "orders", workflow: "ingest" }],
    forms: [{ name: "signup", workflow: "ingest", schema: { type: "object" } }],
  });
});
afterAll(async () => {
  if (serverUrl === undefined) return;
  proxy.restore();
  await weft.stop();
  await proxy.close();
});

const webhook = () => fetch(`${weft.url}/triggers/webhooks/${projectId}/orders`, { method: "POST", body: "{}" });
const form = () =>
  fetch(`${weft.url}/forms/signup?projectId=${projectId}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });

describe.skipIf(serverUrl === undefined)("requests while the database cannot be reached (PostgreSQL only)", () => {
  it("are refused 503 with Retry-After, and served again once it is back", async () => {
    expect((await webhook()).status).toBe(202);
    proxy.cut();
    try {
      for (const response of [await webhook(), await form()]) {
        expect(response.status).toBe(503);
        expect(response.headers.get("retry-after")).toBe("5");
        expect(await response.json()).toMatchObject({ error: "unavailable" });
      }
      const rpc = await callRpc(weft.url, "projects.list", {}, { token });
      expect(rpc.status).toBe(503);
      expect(rpc.headers.get("retry-after")).toBe("5");
      expect(rpc.json).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    } finally {
      proxy.restore();
    }
    expect((await webhook()).status).toBe(202);
    expect((await form()).status).toBe(202);
    expect((await callRpc(weft.url, "projects.list", {}, { token })).status).toBe(200);
  });
});
