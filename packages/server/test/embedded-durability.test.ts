import { fdatasyncSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import {
  deployManifest,
  embeddedTemplate,
  executionRow,
  freePort,
  localPlatformEnv,
  testPlatformLogger,
} from "@weft/testing";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/load-config.ts";
import type { DatabaseHandle } from "../src/db/database.ts";
import { DurableNodeFS } from "../src/db/durable-node-fs.ts";
import { embeddedStartParams } from "../src/db/embedded-durability.ts";
import { flushTree } from "../src/db/flush-tree.ts";
import { renewLeases } from "../src/engine/execution-state/index.ts";
import { sqlRows } from "../src/engine/sql-rows.ts";
import { beat } from "../src/engine/worker-heartbeats.ts";
import { type RunningPlatform, startPlatform } from "../src/platform.ts";

const projectId = "prj_01jdurability0000000000000a";

interface DataDirPlatform {
  platform: RunningPlatform;
  database: DatabaseHandle;
  webhookUrl: string;
  healthUrl: string;
  stop(): Promise<void>;
}

/** A platform as `npm start` runs it, on a data dir of its own that it creates, with a webhook deployed. */
async function startOnFreshDataDir(durability: string): Promise<DataDirPlatform> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "weft-durability-"));
  // No worker: nothing but the request under test writes while it is served.
  const config = loadConfig({
    ...localPlatformEnv(port, dataDir),
    WEFT_ROLES: "auth,api,ingress",
    WEFT_EMBEDDED_DURABILITY: durability,
  });
  const platform = await startPlatform(config, { logger: testPlatformLogger("platform") });
  const database = platform.context.database;
  await deployManifest({ platform, database }, projectId, {
    version: 1,
    workflows: [{ name: "handle" }],
    webhooks: [{ name: "orders", workflow: "handle" }],
  });
  return {
    platform,
    database,
    webhookUrl: `${config.baseUrl}/triggers/webhooks/${projectId}/orders`,
    healthUrl: `${config.baseUrl}/healthz`,
    stop: async () => {
      await platform.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function syncsOf(weft: DataDirPlatform): number {
  const syncs = weft.database.syncs?.();
  if (syncs === undefined) throw new Error("the embedded database in a data dir counts its flushes");
  return syncs;
}

async function fsyncSetting(weft: DataDirPlatform): Promise<string | undefined> {
  const [row] = await sqlRows<{ fsync: string }>(weft.database.db, sql`show fsync`);
  return row?.fsync;
}

const postOrder = (weft: DataDirPlatform) =>
  fetch(weft.webhookUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ order: 1 }),
  });

async function acceptedExecution(weft: DataDirPlatform, response: Response): Promise<string> {
  expect(response.status).toBe(202);
  const { executionIds } = (await response.json()) as { executionIds: string[] };
  const [executionId = ""] = executionIds;
  expect(await executionRow(weft, executionId)).toMatchObject({ triggerKind: "webhook", triggerName: "orders" });
  return executionId;
}

describe("the embedded database by default (WEFT_EMBEDDED_DURABILITY=full)", () => {
  let weft: DataDirPlatform;
  beforeAll(async () => {
    weft = await startOnFreshDataDir("full");
  });
  afterAll(() => weft.stop());

  it("runs PostgreSQL with fsync on", async () => {
    expect(await fsyncSetting(weft)).toBe("on");
  });

  it("flushes a webhook's execution to the disk after the request is sent and before its 202 arrives", async () => {
    const beforeSending = syncsOf(weft);
    const response = await postOrder(weft);
    const atTheAnswer = syncsOf(weft);
    await acceptedExecution(weft, response);
    expect(atTheAnswer).toBeGreaterThan(beforeSending);
  });

  it("commits a worker's lease renewal and heartbeat without waiting for a flush", async () => {
    const executionId = await acceptedExecution(weft, await postOrder(weft));
    const workerId = "wrk_durability";
    // Leased as a claim leaves it: the platform here runs no worker of its own.
    await weft.database.db.execute(
      sql`update executions set status = 'running', lease_owner = ${workerId},
        lease_expires_at = now() + interval '30 seconds' where id = ${executionId}`,
    );
    const expiresAt = new Date(Date.now() + 60_000);
    const before = syncsOf(weft);
    const held = await renewLeases(weft.database.db, { workerId, executionIds: [executionId], expiresAt });
    await beat(weft.database.db, { workerId, now: new Date(), expiresAt });
    await beat(weft.database.db, { workerId, now: new Date(), expiresAt });
    expect(syncsOf(weft)).toBe(before);
    expect(held).toEqual([{ id: executionId, cancelRequestedAt: null }]);
    const [written] = await sqlRows<{ lease: Date | string; beat: Date | string }>(
      weft.database.db,
      sql`select (select lease_expires_at from executions where id = ${executionId}) as lease,
        (select expires_at from worker_heartbeats where worker_id = ${workerId}) as beat`,
    );
    expect([new Date(written?.lease ?? 0), new Date(written?.beat ?? 0)]).toEqual([expiresAt, expiresAt]);
  });

  it("flushes nothing for a request that writes nothing", async () => {
    const before = syncsOf(weft);
    expect((await fetch(weft.healthUrl)).status).toBe(200);
    expect(syncsOf(weft)).toBe(before);
  });
});

describe("WEFT_EMBEDDED_DURABILITY=relaxed", () => {
  let weft: DataDirPlatform;
  beforeAll(async () => {
    weft = await startOnFreshDataDir("relaxed");
  });
  afterAll(() => weft.stop());

  it("acknowledges a webhook without any flush, from the data dir's creation on", async () => {
    expect(await fsyncSetting(weft)).toBe("off");
    await acceptedExecution(weft, await postOrder(weft));
    expect(syncsOf(weft)).toBe(0);
  });
});

describe("DurableNodeFS", () => {
  it("reports a failing fdatasync to PostgreSQL as an errno, which it stops on as any PostgreSQL does", async () => {
    const directory = mkdtempSync(join(tmpdir(), "weft-failing-disk-"));
    let failing = false;
    const failures: unknown[] = [];
    const fs = new DurableNodeFS(directory, {
      fdatasync: (fd) => {
        if (failing) throw Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" });
        fdatasyncSync(fd);
      },
      onFlushFailed: (error) => failures.push(error),
    });
    const template = embeddedTemplate();
    const client = await PGlite.create({
      fs,
      startParams: embeddedStartParams("full"),
      ...(template === undefined ? {} : { loadDataDir: template }),
    });
    try {
      await client.exec("create table flushed (n int)");
      const flushed = fs.syncs;
      expect(flushed).toBeGreaterThan(0);
      failing = true;
      await expect(client.query("insert into flushed values (1)")).rejects.toMatchObject({
        severity: "PANIC",
        code: "58030",
        message: expect.stringMatching(/^could not fsync file ".+": I\/O error$/),
      });
      expect(fs.syncs).toBe(flushed);
      expect(failures).toEqual([expect.objectContaining({ code: "EIO" })]);
    } finally {
      await client.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("flushes every file and directory of a new data directory, and the directory that holds it", async () => {
    const parent = mkdtempSync(join(tmpdir(), "weft-flush-all-"));
    const directory = join(parent, "pgdata");
    mkdirSync(join(directory, "base"), { recursive: true });
    writeFileSync(join(directory, "PG_VERSION"), "17\n");
    writeFileSync(join(directory, "base", "1"), "");
    try {
      expect(await flushTree(directory)).toBe(5);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
