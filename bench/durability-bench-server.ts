import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, startPlatform } from "@weft/server";
import { executions } from "@weft/server/internals";
import { deployManifest, freePort, localPlatformEnv } from "@weft/testing";
import { and, count, eq, inArray } from "drizzle-orm";

/**
 * The server side of the durability benchmark (`durability-bench.ts`), in its own process: Weft as
 * `npm start` runs it, on a data dir of its own with `WEFT_EMBEDDED_DURABILITY` set to the first
 * argument, with one webhook deployed. `webhooks` (the second argument) serves the ingress and API
 * roles only, so that the executions stay as rows and nothing but the webhooks writes; `worker`
 * serves every role, the webhook's workflow running one short step. Prints one JSON line `{url}`
 * once it serves. Over IPC it answers `{syncs}` with the flushes to disk its database has made, and
 * `{settle}` once none of its executions is queued or running.
 */
export type DurabilityServerMessage = { syncs: true } | { settle: true };

const [durability = "full", roles = "webhooks"] = process.argv.slice(2);
const projectId = "prj_01jbenchdurability000000000";

const oneStepWorkflow = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [workflow({ name: "ingest", async run(input: unknown, ctx) {
    return ctx.step("record", () => ({ received: input !== undefined }));
  } })],
});
`;

const port = await freePort();
const dataDir = mkdtempSync(join(tmpdir(), "weft-bench-durability-"));
const config = loadConfig({
  ...localPlatformEnv(port, dataDir),
  WEFT_LOG_LEVEL: "warn",
  WEFT_EMBEDDED_DURABILITY: durability,
  // Without a worker the queue only grows: its delay must not make ingress refuse the load.
  ...(roles === "worker" ? {} : { WEFT_ROLES: "api,ingress", WEFT_MAX_QUEUE_DELAY: "3600" }),
});
const platform = await startPlatform(config);
const database = platform.context.database;
await deployManifest(
  { platform, database },
  projectId,
  { version: 1, workflows: [{ name: "ingest" }], webhooks: [{ name: "orders", workflow: "ingest" }] },
  roles === "worker" ? { configSource: oneStepWorkflow } : {},
);

async function settled(): Promise<void> {
  for (;;) {
    const [row] = await database.db
      .select({ open: count() })
      .from(executions)
      .where(and(eq(executions.projectId, projectId), inArray(executions.status, ["queued", "running"])));
    if ((row?.open ?? 0) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

process.stdout.write(`${JSON.stringify({ url: `${config.baseUrl}/triggers/webhooks/${projectId}/orders` })}\n`);
process.on("message", (message: DurabilityServerMessage) => {
  void (async () => {
    if ("settle" in message) await settled();
    process.send?.({ syncs: database.syncs?.() ?? 0 });
  })();
});
process.once("SIGTERM", () => {
  void (async () => {
    await platform.stop();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  })();
});
