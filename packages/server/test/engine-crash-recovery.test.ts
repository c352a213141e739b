import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  bundleConfig,
  createTestDatabase,
  ensureTestProject,
  spawnWorker,
  startStepCounter,
  type TestDatabase,
  testServerUrl,
} from "@weft/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executionSteps, executions, spans } from "../src/db/schema/index.ts";
import { createDeployment } from "../src/deployments/create-deployment.ts";
import { enqueueExecution } from "../src/engine/enqueue-execution.ts";
import { systemClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";
import { valueOrThrow } from "../src/shared/service-result.ts";
import { completeWaitToken } from "../src/wait-tokens/complete-wait-token.ts";

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({
      name: "counted",
      async run(input: { base: string }, ctx) {
        const hit = (path: string) => ctx.step(path, async () => (await fetch(input.base + "/" + path)).text());
        return [await hit("first"), await hit("block"), await hit("last")];
      },
    }),
    workflow({
      name: "approved",
      async run(input: { base: string }, ctx) {
        const hit = (path: string) => ctx.step(path, async () => (await fetch(input.base + "/" + path)).text());
        const before = await hit("before");
        const token = await ctx.createToken("approval", { timeout: "1d" });
        await ctx.step("ask", () => token.id);
        const answer = await ctx.waitForToken("approval");
        return [before, answer, await hit("after"), token.id];
      },
    }),
  ],
});
`;

// The workflow fetches the test's own loopback counter, through the sandbox's egress proxy.
const egressToCounter = { WEFT_SANDBOX_EGRESS_ALLOW: "127.0.0.1" };

const dataDirs: string[] = [];
let database: TestDatabase | undefined;

beforeAll(async () => {
  if (testServerUrl() !== undefined) database = await createTestDatabase();
});
afterAll(async () => {
  await database?.destroy();
  for (const directory of dataDirs) rmSync(directory, { recursive: true, force: true });
});

// The embedded database belongs to a single process, so several worker processes need PostgreSQL.
describe.skipIf(testServerUrl() === undefined)("a worker killed mid-execution (PostgreSQL only)", () => {
  it("is replaced by another worker that resumes from the last stored step", async () => {
    if (database?.url === undefined) throw new Error("no server database");
    const ids = createIdGenerator(systemClock);
    const deps = { clock: systemClock, ids };
    const counter = await startStepCounter();
    await ensureTestProject(database.db, deps, "prj_crash");
    const deployment = valueOrThrow(
      await createDeployment(database.db, deps, {
        projectId: "prj_crash",
        manifest: { version: 1, workflows: [{ name: "counted" }, { name: "approved" }] },
        bundle: await bundleConfig(source),
      }),
    );
    const { executionId } = valueOrThrow(
      await database.db.transaction((tx) =>
        enqueueExecution(tx, deps, {
          projectId: "prj_crash",
          deploymentId: deployment.id,
          workflow: "counted",
          input: { base: counter.base },
          trigger: { kind: "api" },
        }),
      ),
    );

    const firstDir = mkdtempSync(join(tmpdir(), "weft-worker-a-"));
    const secondDir = mkdtempSync(join(tmpdir(), "weft-worker-b-"));
    dataDirs.push(firstDir, secondDir);
    const first = spawnWorker(database.url, firstDir, egressToCounter);
    await counter.blocked;
    first.child.kill("SIGKILL");
    await first.exited;

    const second = spawnWorker(database.url, secondDir, egressToCounter);
    try {
      const deadline = Date.now() + 30_000;
      let row = (await database.db.select().from(executions).where(eq(executions.id, executionId)))[0];
      while (row?.status !== "succeeded") {
        if (Date.now() > deadline) throw new Error(`not resumed: ${JSON.stringify(row)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
        row = (await database.db.select().from(executions).where(eq(executions.id, executionId)))[0];
      }
      expect(row.output).toEqual(["first#1", "block#2", "last#1"]);
      expect(Object.fromEntries(counter.hits)).toEqual({ first: 1, block: 2, last: 1 });
      const steps = await database.db.select().from(executionSteps).where(eq(executionSteps.executionId, executionId));
      expect(steps.map((step) => step.name).sort()).toEqual(["block", "first", "last"]);
      const attempts = await database.db.select().from(spans).where(eq(spans.executionId, executionId));
      expect(
        attempts
          .filter((span) => span.kind === "attempt")
          .map((span) => span.name)
          .sort(),
      ).toEqual(["attempt 1", "attempt 1 (resumed)"]);
    } finally {
      second.child.kill("SIGTERM");
      await second.exited;
      counter.server.closeAllConnections();
      counter.server.close();
    }
  });
});

describe.skipIf(testServerUrl() === undefined)(
  "a worker killed while an execution waits for a token (PostgreSQL only)",
  () => {
    it("loses nothing: the completed token resumes it on another worker, which runs no step twice", async () => {
      if (database?.url === undefined) throw new Error("no server database");
      const ids = createIdGenerator(systemClock);
      const deps = { clock: systemClock, ids };
      const counter = await startStepCounter();
      await ensureTestProject(database.db, deps, "prj_crash_wait");
      const deployment = valueOrThrow(
        await createDeployment(database.db, deps, {
          projectId: "prj_crash_wait",
          manifest: { version: 1, workflows: [{ name: "counted" }, { name: "approved" }] },
          bundle: await bundleConfig(source),
        }),
      );
      const { executionId } = valueOrThrow(
        await database.db.transaction((tx) =>
          enqueueExecution(tx, deps, {
            projectId: "prj_crash_wait",
            deploymentId: deployment.id,
            workflow: "approved",
            input: { base: counter.base },
            trigger: { kind: "api" },
          }),
        ),
      );
      const read = async () =>
        (await database?.db.select().from(executions).where(eq(executions.id, executionId)))?.[0];
      const reach = async (status: string) => {
        const deadline = Date.now() + 30_000;
        let row = await read();
        while (row?.status !== status) {
          if (Date.now() > deadline) throw new Error(`not ${status}: ${JSON.stringify(row)}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
          row = await read();
        }
        return row;
      };

      const firstDir = mkdtempSync(join(tmpdir(), "weft-worker-a-"));
      const secondDir = mkdtempSync(join(tmpdir(), "weft-worker-b-"));
      dataDirs.push(firstDir, secondDir);
      const first = spawnWorker(database.url, firstDir, egressToCounter);
      await reach("waiting");
      first.child.kill("SIGKILL");
      await first.exited;

      const steps = await database.db.select().from(executionSteps).where(eq(executionSteps.executionId, executionId));
      const tokenId = steps.find((step) => step.name === "ask")?.result.value;
      if (typeof tokenId !== "string") throw new Error("no token id stored");
      const completed = await completeWaitToken(database.db, deps, { tokenId, data: { approved: true } });
      expect(completed).toEqual({ ok: true, value: { executionId } });

      const second = spawnWorker(database.url, secondDir, egressToCounter);
      try {
        const row = await reach("succeeded");
        expect(row.output).toEqual(["before#1", { ok: true, data: { approved: true } }, "after#1", tokenId]);
        expect(Object.fromEntries(counter.hits)).toEqual({ before: 1, after: 1 });
        const attempts = await database.db.select().from(spans).where(eq(spans.executionId, executionId));
        expect(
          attempts
            .filter((span) => span.kind === "attempt")
            .map((span) => span.name)
            .sort(),
        ).toEqual(["attempt 1", "attempt 1 (resumed)"]);
      } finally {
        second.child.kill("SIGTERM");
        await second.exited;
        counter.server.closeAllConnections();
        counter.server.close();
      }
    });
  },
);
