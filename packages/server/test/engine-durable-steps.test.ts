import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  countedStepsWorkflow,
  deployTestProject,
  enqueueTestExecution,
  readExecution,
  startStepCounter,
} from "@weft/testing";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../src/db/database.ts";
import { executionSteps } from "../src/db/schema/index.ts";
import { systemClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";

const workerEntry = fileURLToPath(new URL("../src/worker-main.ts", import.meta.url));

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    ${countedStepsWorkflow},
  ],
});
`;

const dataDir = mkdtempSync(join(tmpdir(), "weft-durable-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** `weft worker` on the embedded database of `dataDir`, the only process that opens it while it runs. */
function spawnEmbeddedWorker(collector: string): { child: ChildProcess; exited: Promise<unknown>; output(): string } {
  const child = spawn(process.execPath, [workerEntry], {
    env: {
      PATH: process.env.PATH ?? "",
      WEFT_DATA_DIR: dataDir,
      WEFT_LOG_LEVEL: "warn",
      WEFT_SANDBOX_EGRESS_ALLOW: "127.0.0.1",
      // A finished execution's spans are exported after its end is stored: the sign that it is over.
      OTEL_EXPORTER_OTLP_ENDPOINT: collector,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  return { child, exited: new Promise((resolve) => child.once("exit", resolve)), output: () => output };
}

describe("a step reported stored on the embedded database", () => {
  it("survives a SIGKILL of the process and is not run again; the restart resumes without waiting for the lease", async () => {
    const counter = await startStepCounter();
    const ids = createIdGenerator(systemClock);
    const deps = { clock: systemClock, ids };
    const setup = await openDatabase({ kind: "embedded", dataDir });
    const deploymentId = await deployTestProject(setup.db, deps, {
      projectId: "prj_durable",
      manifest: { version: 1, workflows: [{ name: "counted" }] },
      configSource: source,
    });
    const executionId = await enqueueTestExecution(setup.db, deps, {
      projectId: "prj_durable",
      deploymentId,
      workflow: "counted",
      input: { base: counter.base },
    });
    await setup.close();

    try {
      const first = spawnEmbeddedWorker(counter.base);
      // The child asks for "block" only once the worker told it "first" was stored.
      await counter.blocked;
      first.child.kill("SIGKILL");
      await first.exited;

      const second = spawnEmbeddedWorker(counter.base);
      while (!counter.hits.has("v1/traces")) {
        if (second.child.exitCode !== null) throw new Error(`the worker stopped: ${second.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      second.child.kill("SIGTERM");
      await second.exited;
    } finally {
      counter.close();
    }

    const after = await openDatabase({ kind: "embedded", dataDir });
    try {
      const row = await readExecution(after.db, executionId);
      const steps = await after.db.select().from(executionSteps).where(eq(executionSteps.executionId, executionId));
      expect(Object.fromEntries(counter.hits)).toEqual({ first: 1, block: 2, last: 1, "v1/traces": 1 });
      expect(row).toMatchObject({ status: "succeeded", output: ["first#1", "block#2", "last#1"] });
      expect(steps.map((step) => step.name).sort()).toEqual(["block", "first", "last"]);
    } finally {
      await after.close();
    }
  }, 120_000);
});
