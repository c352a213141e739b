import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allScopes } from "@weft/contract";
import {
  callRpc,
  deployTestProject,
  egressToStepCounter,
  enqueueTestExecution,
  freePort,
  killWorkerOnceReached,
  localPlatformEnv,
  type ServerProcess,
  serverDatabaseForWorkers,
  spawnServer,
  startCountedRun,
  startStepCounter,
  testServerUrl,
  waitForExecution,
  workerUntilTestEnds,
} from "@weft/testing";
import { eq } from "drizzle-orm";
import { describe, expect, it, onTestFinished } from "vitest";
import { type Database, openDatabase } from "../src/db/database.ts";
import { executionSteps, executions } from "../src/db/schema/index.ts";
import { findOrCreateAccount } from "../src/identity/accounts.ts";
import { issueCredential } from "../src/identity/credentials.ts";
import { systemClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";

/**
 * A worker process killed with SIGKILL in the middle of a fan-out of 50 children (`ctx.invoke`
 * over `Promise.all`): another worker finishes it, with each child started once, the parent's
 * steps run once, and every child's output in its place. On PostgreSQL the worker alone dies; on
 * the embedded database the whole platform does, its database with it, and starts again.
 */

const children = 50;
const blockedChild = 25;

const source = `
import { defineConfig, workflow } from "@weft/sdk";

const leaf = workflow({
  name: "leaf",
  async run(input: { base: string; i: number }, ctx) {
    const path = input.i === ${blockedChild} ? "block" : "leaf-" + input.i;
    return ctx.step("hit", async () => (await fetch(input.base + "/" + path)).text());
  },
});

export default defineConfig({
  workflows: [
    leaf,
    workflow({
      name: "fan-out",
      async run(input: { base: string }, ctx) {
        const hit = (path: string) => ctx.step(path, async () => (await fetch(input.base + "/" + path)).text());
        const before = await hit("before");
        const results = await Promise.all(
          Array.from({ length: ${children} }, (_, i) => ctx.invoke("leaf-" + i, leaf, { base: input.base, i })),
        );
        return { before, results, after: await hit("after") };
      },
    }),
  ],
});
`;

const deps = { clock: systemClock, ids: createIdGenerator(systemClock) };
const serverDatabase = serverDatabaseForWorkers();

describe.skipIf(testServerUrl() === undefined)("a worker killed in the middle of a fan-out (PostgreSQL only)", () => {
  it("is replaced by another that finishes it: 50 children started once, no parent step run twice", async () => {
    const database = serverDatabase();
    const { counter, executionId: parentId } = await startCountedRun(database, deps, {
      projectId: "prj_crash_fan_out",
      manifest: { version: 1, workflows: [{ name: "leaf" }, { name: "fan-out" }] },
      configSource: source,
      workflow: "fan-out",
    });
    // The blocked child is running: the fan-out is under way, its other children started or running.
    await killWorkerOnceReached(database.url, egressToStepCounter, () => counter.blocked);

    workerUntilTestEnds(database.url, egressToStepCounter);
    const row = await waitForExecution(database.db, parentId, (found) => found.status === "succeeded", {
      timeoutMs: 90_000,
      intervalMs: 200,
    });
    await expectFinishedOnce(database.db, parentId, row.output, counter.hits);
  }, 150_000);
});

/** The fan-out finished once: one child per index, each succeeded, the parent's steps run once. */
async function expectFinishedOnce(db: Database, parentId: string, parentOutput: unknown, hits: Map<string, number>) {
  const started = await db
    .select({ id: executions.id, input: executions.input, status: executions.status })
    .from(executions)
    .where(eq(executions.parentExecutionId, parentId));
  // One child per name: a replay after the crash found the children the first worker started.
  expect(started).toHaveLength(children);
  const indexes = started.map((child) => (child.input as { i: number }).i).sort((a, b) => a - b);
  expect(indexes).toEqual(Array.from({ length: children }, (_, i) => i));
  expect(started.every((child) => child.status === "succeeded")).toBe(true);

  const output = parentOutput as { before: string; results: string[]; after: string };
  expect(output.before).toBe("before#1");
  expect(output.after).toBe("after#1");
  expect(hits.get("before")).toBe(1);
  expect(hits.get("after")).toBe(1);
  // The blocked child's step was cut off by the kill and ran again; it is stored once.
  expect(output.results[blockedChild]).toBe("block#2");
  for (let i = 0; i < children; i += 1) {
    if (i === blockedChild) continue;
    // A child's step in flight at the kill may run again; a stored one never does.
    expect(output.results[i]).toMatch(new RegExp(`^leaf-${i}#[12]$`));
  }
  // Each result is the one its child stored.
  for (const child of started) {
    const [hit] = await db.select().from(executionSteps).where(eq(executionSteps.executionId, child.id));
    expect(output.results[(child.input as { i: number }).i]).toBe(hit?.result.value);
  }
  const parentSteps = await db
    .select({ name: executionSteps.name })
    .from(executionSteps)
    .where(eq(executionSteps.executionId, parentId));
  expect(parentSteps.map((step) => step.name).sort()).toEqual(["after", "before"]);
}

describe.skipIf(testServerUrl() !== undefined)("the embedded platform killed in the middle of a fan-out", () => {
  it("starts again on its data directory and finishes it: 50 children started once, no parent step run twice", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "weft-crash-fan-out-"));
    const servers: ServerProcess[] = [];
    onTestFinished(async () => {
      for (const server of servers) if (server.child.exitCode === null) server.child.kill("SIGKILL");
      await Promise.all(servers.map((server) => server.exited));
      rmSync(dataDir, { recursive: true, force: true });
    });
    const counter = await startStepCounter();
    onTestFinished(() => counter.close());
    const projectId = "prj_crash_fan_out_embedded";
    const email = "fan-out@tests.weft.invalid";
    // The embedded database is the data directory's, which one process at a time may open.
    const setup = await openDatabase({ kind: "embedded", dataDir });
    const deploymentId = await deployTestProject(setup.db, deps, {
      projectId,
      manifest: { version: 1, workflows: [{ name: "leaf" }, { name: "fan-out" }] },
      configSource: source,
      owner: email,
    });
    const parentId = await enqueueTestExecution(setup.db, deps, {
      projectId,
      deploymentId,
      workflow: "fan-out",
      input: { base: counter.base },
    });
    const { credential } = await setup.db.transaction(async (tx) => {
      const account = await findOrCreateAccount(tx, deps, email);
      return issueCredential(tx, deps, { accountId: account.accountId, scopes: [...allScopes] });
    });
    await setup.close();

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const start = () => {
      const server = spawnServer({ ...localPlatformEnv(port, dataDir), ...egressToStepCounter });
      servers.push(server);
      return server;
    };
    const first = start();
    await counter.blocked;
    first.child.kill("SIGKILL");
    await first.exited;

    const second = start();
    const deadline = Date.now() + 120_000;
    for (;;) {
      const answer = await callRpc(
        url,
        "workflows.getExecution",
        { executionId: parentId },
        { token: credential },
      ).catch(() => undefined);
      if ((answer?.json as { status?: string } | undefined)?.status === "succeeded") break;
      if (Date.now() > deadline || second.child.exitCode !== null) {
        throw new Error(`the fan-out did not finish: ${answer?.text ?? "no answer"} ${second.stderr()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);

    const after = await openDatabase({ kind: "embedded", dataDir });
    try {
      const row = await waitForExecution(after.db, parentId, (found) => found.status === "succeeded");
      await expectFinishedOnce(after.db, parentId, row.output, counter.hits);
    } finally {
      await after.close();
    }
  }, 240_000);
});
