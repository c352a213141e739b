import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deployManifest, freePort, localPlatformEnv, startTestPlatform, type TestPlatform } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/load-config.ts";
import { type RunningPlatform, startPlatform } from "../src/platform.ts";
import { createLogger } from "../src/shared/logger.ts";

// Two platform processes on one database, as a split deployment runs them: one serves ingress,
// the other the API through which deployments are made.
let ingress: TestPlatform;
let api: RunningPlatform;
let apiDataDir: string;
const projectId = "prj_01jdeploychanges0000000000a";
const webhookUrl = () => `${ingress.url}/triggers/webhooks/${projectId}/orders`;

beforeAll(async () => {
  ingress = await startTestPlatform({ env: { WEFT_ROLES: "ingress" } });
  apiDataDir = mkdtempSync(join(tmpdir(), "weft-test-"));
  const config = loadConfig({ ...localPlatformEnv(await freePort(), apiDataDir), WEFT_ROLES: "api" });
  api = await startPlatform(config, {
    clock: ingress.clock,
    logger: createLogger({ level: "silent" }),
    database: ingress.database,
  });
});
afterAll(async () => {
  await api.stop();
  await ingress.stop();
  rmSync(apiDataDir, { recursive: true, force: true });
});

/** Resolves when the ingress process hears that the project's active deployment changed. */
function ingressHearsOfChange(): Promise<void> {
  return new Promise((resolve) => {
    const unsubscribe = ingress.platform.context.activeDeploymentChanges.subscribe((changed) => {
      if (changed !== projectId) return;
      unsubscribe();
      resolve();
    });
  });
}

function post(headers: Record<string, string> = {}): Promise<Response> {
  return fetch(webhookUrl(), {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ event: "order.created" }),
  });
}

describe("ingress and deployments made by another process", () => {
  it("serves each deployment the other process makes active, once it hears of it", async () => {
    const apiProcess = { platform: api, database: ingress.database };
    await deployManifest(apiProcess, projectId, {
      version: 1,
      workflows: [{ name: "ingest" }],
      webhooks: [{ name: "orders", workflow: "ingest" }],
    });
    expect((await post()).status).toBe(202);

    let heard = ingressHearsOfChange();
    await deployManifest(apiProcess, projectId, {
      version: 1,
      workflows: [{ name: "ingest" }],
      webhooks: [{ name: "orders", workflow: "ingest", secret: { header: "X-Orders-Secret", value: "orders-secret" } }],
    });
    await heard;
    expect((await post()).status).toBe(401);
    expect((await post({ "X-Orders-Secret": "orders-secret" })).status).toBe(202);

    heard = ingressHearsOfChange();
    await deployManifest(apiProcess, projectId, { version: 1, workflows: [{ name: "ingest" }] });
    await heard;
    expect((await post({ "X-Orders-Secret": "orders-secret" })).status).toBe(404);
  });
});
