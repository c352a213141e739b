import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allScopes } from "@weft/contract";
import {
  callRpc,
  createTestDatabase,
  deployTestProject,
  enqueueTestExecution,
  freePort,
  localPlatformEnv,
  type ServerProcess,
  spawnServer,
  type TestDatabase,
  testServerUrl,
} from "@weft/testing";
import { afterAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "../src/db/database.ts";
import { findOrCreateAccount } from "../src/identity/accounts.ts";
import { issueCredential } from "../src/identity/credentials.ts";
import { systemClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";

// Without bubblewrap the sandbox child is a plain child of the platform, which it can SIGKILL.
const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({ name: "crash", async run(_input: unknown, ctx) {
      await ctx.step("kill the platform", () => {
        process.kill(process.ppid, "SIGKILL");
        return "sent";
      });
      return "survived";
    } }),
    workflow({ name: "calm", async run(input: unknown) {
      return { echoed: input };
    } }),
  ],
});
`;
const manifest = { version: 1, workflows: [{ name: "crash" }, { name: "calm" }] };

const crashAttempts = 3;
const dataDir = mkdtempSync(join(tmpdir(), "weft-crash-loop-"));
const servers: ServerProcess[] = [];
let serverDatabase: TestDatabase | undefined;

afterAll(async () => {
  for (const server of servers) if (server.child.exitCode === null) server.child.kill("SIGKILL");
  await Promise.all(servers.map((server) => server.exited));
  await serverDatabase?.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

const isDown = (server: ServerProcess) => server.child.exitCode !== null || server.child.signalCode !== null;

/** Waits (bounded) until the server serves or is gone: the crash may come before its banner. */
async function servingOrDown(server: ServerProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!server.stdout().includes("Weft is running at") && !isDown(server)) {
    if (Date.now() > deadline) throw new Error(`the server neither started nor stopped: ${server.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const deps = { clock: systemClock, ids: createIdGenerator(systemClock) };
const crashingProject = deps.ids("project");
const calmProject = deps.ids("project");

/** A project of its own workspace, deployed, with a credential of its owner to call the API with. */
async function tenant(
  handle: DatabaseHandle,
  projectId: string,
  email: string,
): Promise<{ deploymentId: string; token: string }> {
  const deploymentId = await deployTestProject(handle.db, deps, {
    projectId,
    manifest,
    configSource: source,
    owner: email,
  });
  const issued = await handle.db.transaction(async (tx) => {
    const account = await findOrCreateAccount(tx, deps, email);
    return issueCredential(tx, deps, { accountId: account.accountId, scopes: [...allScopes] });
  });
  return { deploymentId, token: issued.credential };
}

describe("a workflow that kills the platform's process every time it runs", () => {
  it(`is failed after ${crashAttempts} deaths, and the restarted platform serves the other tenants`, async () => {
    const serverUrl = testServerUrl();
    if (serverUrl !== undefined) serverDatabase = await createTestDatabase(serverUrl);
    // The embedded database is the data directory's, which one process at a time may open.
    const setup = serverDatabase ?? (await openDatabase({ kind: "embedded", dataDir }));
    const crashing = await tenant(setup, crashingProject, "crashing@tests.weft.invalid");
    const calm = await tenant(setup, calmProject, "calm@tests.weft.invalid");
    const executionId = await enqueueTestExecution(setup.db, deps, {
      projectId: crashingProject,
      deploymentId: crashing.deploymentId,
      workflow: "crash",
    });
    if (serverDatabase === undefined) await setup.close();

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const start = async () => {
      const server = spawnServer({
        ...localPlatformEnv(port, dataDir),
        ...(serverDatabase?.url === undefined ? {} : { DATABASE_URL: serverDatabase.url }),
        WEFT_SANDBOX: "process",
        WEFT_CRASH_ATTEMPTS: String(crashAttempts),
        // On PostgreSQL a dead worker's executions are taken over once its heartbeat and leases lapse.
        WEFT_WORKER_LEASE_SECONDS: "2",
      });
      servers.push(server);
      await servingOrDown(server);
      return server;
    };
    /** An execution as `workflows.getExecution` answers it; `undefined` while the platform is down. */
    const executionOf = async (id: string, token: string) => {
      const answer = await callRpc(url, "workflows.getExecution", { executionId: id }, { token }).catch(
        () => undefined,
      );
      return answer?.status === 200 ? (answer.json as { status: string }) : undefined;
    };

    let server = await start();
    let deaths = 0;
    const deadline = Date.now() + 150_000;
    for (;;) {
      if (isDown(server)) {
        expect(server.child.signalCode, server.stderr()).toBe("SIGKILL");
        deaths += 1;
        if (deaths > crashAttempts) throw new Error(`the platform died ${deaths} times`);
        server = await start();
        continue;
      }
      const execution = await executionOf(executionId, crashing.token);
      if (execution?.status === "failed") break;
      if (Date.now() > deadline) throw new Error(`the execution did not fail: ${JSON.stringify(execution)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    expect(deaths).toBe(crashAttempts);
    expect(await executionOf(executionId, crashing.token)).toMatchObject({
      status: "failed",
      attempt: 1,
      error: {
        name: "WorkerCrashError",
        message: `the worker process died ${crashAttempts} times while running this execution; it is not run again (WEFT_CRASH_ATTEMPTS=${crashAttempts})`,
      },
    });

    const run = await callRpc(
      url,
      "workflows.run",
      { projectId: calmProject, workflow: "calm", input: { n: 1 } },
      { token: calm.token },
    );
    expect(run.status, run.text).toBe(200);
    const calmId = (run.json as { executionId: string }).executionId;
    const calmDeadline = Date.now() + 60_000;
    let calmRun = await executionOf(calmId, calm.token);
    while (calmRun?.status !== "succeeded") {
      if (isDown(server) || Date.now() > calmDeadline) {
        throw new Error(`the other tenant's execution did not run: ${JSON.stringify(calmRun)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      calmRun = await executionOf(calmId, calm.token);
    }
    expect(calmRun).toMatchObject({ status: "succeeded", output: { echoed: { n: 1 } } });

    const projects = await callRpc(url, "projects.list", {}, { token: calm.token });
    expect(projects.status).toBe(200);
    expect((projects.json as { results: { id: string }[] }).results.map((project) => project.id)).toEqual([
      calmProject,
    ]);

    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  }, 240_000);
});
