import { createTestDatabase, deployTestProject, executionPagesReadBy, type TestDatabase } from "@weft/testing";
import { and, count, eq, isNotNull, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executions } from "../src/db/schema/index.ts";
import { sqlRows } from "../src/engine/sql-rows.ts";
import { endStatementParts } from "../src/engine-features.ts";
import { cancelOnEvent, cancelTargets } from "../src/events/cancel-on-event.ts";
import { sendEvent } from "../src/events/send-event.ts";
import { createManualClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";
import { runWorkflowMany } from "../src/workflows/run-many.ts";

/**
 * A `cancelOn` match finds the executions it cancels by the keys stored at their enqueue: among
 * thousands of queued executions of the workflow (and of another tenant's, with the same values) a
 * send reads as many pages as among a hundred; running executions already flagged neither hide the
 * others nor count; a debounce's moved input moves its key; executions stored without keys (before
 * the keys existed) are still compared by input. No worker runs: what is queued stays queued.
 */

const clock = createManualClock();
const deps = { clock, ids: createIdGenerator(clock), endStatementParts };
const victim = "prj_cancel_keys_victim";
const other = "prj_cancel_keys_other";
const orderCancelled = { event: "order.cancelled", match: { event: "$.data.orderId", input: "$.orderId" } };
const manifest = {
  version: 1,
  workflows: [
    { name: "order", cancelOn: [orderCancelled] },
    { name: "batch", cancelOn: [{ event: "batch.cancelled" }] },
    { name: "debounced-order", debounce: { periodMs: 60_000 }, cancelOn: [orderCancelled] },
  ],
};

let database: TestDatabase;

async function run(projectId: string, workflow: string, inputs: unknown[]): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < inputs.length; start += 1000) {
    const started = await runWorkflowMany(database.db, deps, {
      projectId,
      workflow,
      inputs: inputs.slice(start, start + 1000),
    });
    if (!started.ok) throw new Error(started.failure.message);
    ids.push(...started.value.executionIds);
  }
  return ids;
}

function orders(from: number, to: number): { orderId: string }[] {
  return Array.from({ length: to - from }, (_, index) => ({ orderId: `o-${from + index}` }));
}

async function send(projectId: string, name: string, data?: unknown): Promise<number> {
  const sent = await sendEvent(database.db, deps, { projectId, name, data, source: { kind: "api" } });
  if (!sent.ok) throw new Error(sent.failure.message);
  return sent.value.cancelled;
}

async function statusOf(executionId: string): Promise<string | undefined> {
  const [row] = await database.db
    .select({ status: executions.status })
    .from(executions)
    .where(eq(executions.id, executionId));
  return row?.status;
}

/** Marks `ids` running in a worker's hands, and flagged for cancellation if asked, as a send or a cancel leaves them. */
async function markRunning(ids: string[], options: { flagged: boolean }): Promise<void> {
  const at = clock.now().toISOString();
  await database.db.execute(sql`update executions set status = 'running', lease_owner = 'wrk_cancel_keys',
      lease_expires_at = ${at}::timestamptz + interval '1 hour', started_at = ${at}::timestamptz,
      cancel_requested_at = case when ${options.flagged}::boolean then ${at}::timestamptz end
    where id = any(string_to_array(${ids.join(",")}, ','))`);
}

/** The cancellations of `order.cancelled` for `orderId` in the victim's project, and the pages of `executions` they read. */
function cancelOrder(orderId: string) {
  return database.db.transaction(async (tx) => {
    const event = { id: "evt_measured", name: "order.cancelled", data: { orderId }, sentAt: clock.now().toISOString() };
    const targets = cancelTargets(manifest.workflows, victim, event);
    const {
      value: { cancelled },
      pages,
    } = await executionPagesReadBy(tx, () =>
      cancelOnEvent(tx, deps, { projectId: victim, targets, now: clock.now(), limit: 1000 }),
    );
    if (process.env.WEFT_TEST_REPORT_PAGES) console.log(`cancel ${orderId}: ${cancelled} cancelled, ${pages} pages`);
    return { cancelled, pages };
  });
}

beforeAll(async () => {
  database = await createTestDatabase();
  await deployTestProject(database.db, deps, { projectId: victim, manifest });
  await deployTestProject(database.db, deps, { projectId: other, manifest });
}, 60_000);
afterAll(async () => {
  await database?.destroy();
});

describe("a match among a backlog", () => {
  it("finds its one execution among 5 000 queued, and another tenant's 2 000 of the same value, reading as many pages as among 100", async () => {
    const firstIds = await run(victim, "order", orders(0, 100));
    // Running, so that the send flags it: the pages counted are the lookup's, not those of the end statement.
    await markRunning([firstIds[50] ?? ""], { flagged: false });
    const small = await cancelOrder("o-50");
    const smallMiss = await cancelOrder("o-none");
    expect([small.cancelled, smallMiss.cancelled]).toEqual([1, 0]);

    const laterIds = await run(victim, "order", orders(100, 5000));
    await run(
      other,
      "order",
      Array.from({ length: 2000 }, () => ({ orderId: "o-2500" })),
    );
    await markRunning([laterIds[2400] ?? ""], { flagged: false });
    const large = await cancelOrder("o-2500");
    const largeMiss = await cancelOrder("o-none");
    expect([large.cancelled, largeMiss.cancelled]).toEqual([1, 0]);
    // The indexes the flag's update writes to may each have grown a level between the two. A send
    // that finds nothing reads the index alone: a small share of the backlog's pages.
    expect(large.pages).toBeLessThanOrEqual(small.pages + 10);
    expect(largeMiss.pages).toBeLessThanOrEqual(smallMiss.pages + 10);
    const [size] = await sqlRows<{ pages: number }>(
      database.db,
      sql`select (pg_relation_size('executions') / current_setting('block_size')::int)::int as pages`,
    );
    if (process.env.WEFT_TEST_REPORT_PAGES) console.log(`executions: ${size?.pages} pages`);
    expect(size?.pages).toBeGreaterThan(largeMiss.pages * 5);

    expect(await send(victim, "order.cancelled", { orderId: "o-3000" })).toBe(1);
    expect(await statusOf(laterIds[2900] ?? "")).toBe("cancelled");
    const queued = async (projectId: string) =>
      (
        await database.db
          .select({ n: count() })
          .from(executions)
          .where(and(eq(executions.projectId, projectId), eq(executions.status, "queued")))
      )[0]?.n;
    expect(await queued(victim)).toBe(4997);
    expect(await queued(other)).toBe(2000);
  }, 120_000);

  it("matches a value by its JSON, whatever the order of an object's keys, and never a string for a number", async () => {
    const [object, number] = await run(victim, "order", [{ orderId: { shop: "s1", n: 7 } }, { orderId: 7 }]);
    expect(await send(victim, "order.cancelled", { orderId: { n: 7, shop: "s1" } })).toBe(1);
    expect(await statusOf(object ?? "")).toBe("cancelled");
    expect(await send(victim, "order.cancelled", { orderId: "7" })).toBe(0);
    expect(await statusOf(number ?? "")).toBe("queued");
    expect(await send(victim, "order.cancelled", { orderId: 7 })).toBe(1);
  });
});

describe("already flagged running executions", () => {
  async function flaggedCount(projectId: string, workflow: string): Promise<number | undefined> {
    return (
      await database.db
        .select({ n: count() })
        .from(executions)
        .where(
          and(
            eq(executions.projectId, projectId),
            eq(executions.workflow, workflow),
            eq(executions.status, "running"),
            isNotNull(executions.cancelRequestedAt),
          ),
        )
    )[0]?.n;
  }

  it("neither hide an unfinished execution of the workflow nor count, for an entry without match", async () => {
    await markRunning(
      await run(
        victim,
        "batch",
        Array.from({ length: 1000 }, (_, index) => ({ index })),
      ),
      {
        flagged: true,
      },
    );
    const [fresh] = await run(victim, "batch", [{ index: 1000 }]);
    expect(await send(victim, "batch.cancelled")).toBe(1);
    expect(await statusOf(fresh ?? "")).toBe("cancelled");
    expect(await flaggedCount(victim, "batch")).toBe(1000);
  }, 60_000);

  it("neither hide an execution of the same key nor count, for a match", async () => {
    await markRunning(
      await run(
        victim,
        "order",
        Array.from({ length: 1000 }, () => ({ orderId: "o-flagged" })),
      ),
      {
        flagged: true,
      },
    );
    const [fresh] = await run(victim, "order", [{ orderId: "o-flagged" }]);
    expect(await send(victim, "order.cancelled", { orderId: "o-flagged" })).toBe(1);
    expect(await statusOf(fresh ?? "")).toBe("cancelled");
    expect(await send(victim, "order.cancelled", { orderId: "o-flagged" })).toBe(0);
  }, 60_000);
});

describe("keys that follow the input", () => {
  it("moves a debounced execution's key with the input a later trigger gives it, in one batch or two", async () => {
    const [first] = await run(victim, "debounced-order", [{ orderId: "o-d1" }]);
    const [moved] = await run(victim, "debounced-order", [{ orderId: "o-d2" }]);
    expect(moved).toBe(first);
    expect(await send(victim, "order.cancelled", { orderId: "o-d1" })).toBe(0);
    expect(await send(victim, "order.cancelled", { orderId: "o-d2" })).toBe(1);
    expect(await statusOf(first ?? "")).toBe("cancelled");

    const batch = await run(victim, "debounced-order", [{ orderId: "o-d3" }, { orderId: "o-d4" }]);
    expect(batch[1]).toBe(batch[0]);
    expect(await send(victim, "order.cancelled", { orderId: "o-d3" })).toBe(0);
    expect(await send(victim, "order.cancelled", { orderId: "o-d4" })).toBe(1);
  });

  it("still compares by input the executions stored before their keys were", async () => {
    const [keyless, spared] = await run(victim, "order", [{ orderId: "o-old" }, { orderId: "o-old-2" }]);
    await database.db
      .update(executions)
      .set({ cancelKeys: null })
      .where(sql`${executions.id} in (${keyless}, ${spared})`);
    expect(await send(victim, "order.cancelled", { orderId: "o-old" })).toBe(1);
    expect(await statusOf(keyless ?? "")).toBe("cancelled");
    expect(await statusOf(spared ?? "")).toBe("queued");
  });
});
