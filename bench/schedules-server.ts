import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, startPlatform } from "@weft/server";
import {
  bundleConfig,
  callRpc,
  createTestDatabase,
  createTestIdentity,
  freePort,
  localPlatformEnv,
} from "@weft/testing";

/**
 * The server side of the schedules benchmark (`schedules.ts`), in its own process so the load
 * generator does not share its event loop: every role in one platform with the system clock, on
 * the embedded database (or on WEFT_TEST_DATABASE_URL's server when argv[2] is `postgres`).
 * `SCHEDULE_TENANTS` tenants, each in a workspace of its own (a plan's `schedules` is per
 * workspace), each deploys one project with `SCHEDULES_PER_TENANT` every-minute schedules of a
 * workflow without steps; one more tenant deploys `echo`, the workflow `workflows.run` is measured
 * on. Prints one JSON line `ScheduleServerReady` once deployed, then runs until killed.
 */
export interface ScheduleServerReady {
  url: string;
  token: string;
  projectId: string;
  database: string;
  schedules: number;
  /** The scheduling tenants, whose `billing.getPlan` counts the executions their ticks started. */
  schedulers: { token: string; workspaceId: string }[];
}

const tenants = Number(process.env.SCHEDULE_TENANTS ?? 5);
const schedulesPerTenant = Number(process.env.SCHEDULES_PER_TENANT ?? 200);

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({ name: "tick", async run(input: { scheduledFor: string }) { return input.scheduledFor; } }),
    workflow({ name: "echo", async run(input: unknown) { return input; } }),
  ],
});
`;

const port = await freePort();
const dataDir = mkdtempSync(join(tmpdir(), "weft-bench-schedules-"));
const config = loadConfig({ ...localPlatformEnv(port, dataDir), WEFT_LOG_LEVEL: "warn" });
const database = await createTestDatabase(process.argv[2] === "postgres" ? undefined : false, {
  embeddedDataDir: dataDir,
});
const platform = await startPlatform(config, { database });
const bundle = await bundleConfig(source);

async function deployedProject(
  email: string,
  schedules: number,
): Promise<{ token: string; projectId: string; workspaceId: string }> {
  const identity = await createTestIdentity({ platform }, email);
  const token = identity.credential;
  const created = await callRpc(config.baseUrl, "projects.create", { name: email.split("@")[0] }, { token });
  if (created.status !== 200) throw new Error(`projects.create answered ${created.status}`);
  const projectId = (created.json as { id: string }).id;
  const manifest = {
    version: 1,
    workflows: [{ name: "tick" }, { name: "echo" }],
    schedules: Array.from({ length: schedules }, (_, index) => ({
      name: `every-minute-${index}`,
      workflow: "tick",
      cron: "* * * * *",
    })),
  };
  const deployed = await callRpc(config.baseUrl, "deployments.create", { projectId, manifest, bundle }, { token });
  if (deployed.status !== 200)
    throw new Error(`deployments.create answered ${deployed.status}: ${JSON.stringify(deployed.json)}`);
  return { token, projectId, workspaceId: identity.personalWorkspaceId };
}

const schedulers: ScheduleServerReady["schedulers"] = [];
for (let tenant = 0; tenant < tenants; tenant += 1) {
  const { token, workspaceId } = await deployedProject(`scheduler-${tenant}@bench.test`, schedulesPerTenant);
  schedulers.push({ token, workspaceId });
}
const measured = await deployedProject("caller@bench.test", 0);
const ready: ScheduleServerReady = {
  url: config.baseUrl,
  token: measured.token,
  projectId: measured.projectId,
  database: database.kind,
  schedules: tenants * schedulesPerTenant,
  schedulers,
};
process.stdout.write(`${JSON.stringify(ready)}\n`);

const stop = async () => {
  await platform.stop();
  await database.destroy();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
