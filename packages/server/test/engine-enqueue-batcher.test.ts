import { createTestDatabase, ensureTestProject, type TestDatabase } from "@weft/testing";
import { eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executions, spans } from "../src/db/schema/index.ts";
import { createDeployment } from "../src/deployments/create-deployment.ts";
import { createEnqueueBatcher, DeadlineExpiredError } from "../src/engine/enqueue-batcher.ts";
import { createManualClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";
import { valueOrThrow } from "../src/shared/service-result.ts";

const clock = createManualClock();
const deps = { clock, ids: createIdGenerator(clock) };
const workflow = { name: "ingest" };
let database: TestDatabase;
let deploymentId: string;

function request(input: unknown, overrides: { deploymentId?: string } = {}) {
  return {
    request: {
      projectId: "prj_batch",
      deploymentId: overrides.deploymentId ?? deploymentId,
      workflow: "ingest",
      input,
      trigger: { kind: "webhook" as const, name: "orders" },
    },
    workflow,
  };
}

/** Rows inserted by one transaction share its id, which PostgreSQL keeps as the row's xmin. */
async function transactionsThatWrote(ids: string[]): Promise<number> {
  const [row] = await database.db
    .select({ n: sql<number>`count(distinct xmin::text)::int` })
    .from(executions)
    .where(inArray(executions.id, ids));
  return row?.n ?? 0;
}

beforeAll(async () => {
  database = await createTestDatabase();
  await ensureTestProject(database.db, deps, "prj_batch");
  const deployment = valueOrThrow(
    await createDeployment(database.db, deps, {
      projectId: "prj_batch",
      manifest: { version: 1, workflows: [workflow] },
      bundle: "export default { workflows: [] };",
    }),
  );
  deploymentId = deployment.id;
});
afterAll(async () => {
  await database.destroy();
});

describe("the enqueue batcher (group commit of triggers)", () => {
  it("writes concurrent requests in far fewer transactions, each answered with its own committed execution", async () => {
    const batcher = createEnqueueBatcher({ db: database.db, ...deps });
    const ids = await Promise.all(Array.from({ length: 60 }, (_, n) => batcher.enqueue(request({ n }))));
    expect(new Set(ids).size).toBe(60);
    const rows = await database.db
      .select({ id: executions.id, input: executions.input, status: executions.status })
      .from(executions)
      .where(inArray(executions.id, ids));
    expect(rows).toHaveLength(60);
    const inputs = new Map(rows.map((row) => [row.id, row.input]));
    expect(ids.map((id) => inputs.get(id))).toEqual(ids.map((_, n) => ({ n })));
    expect(rows.every((row) => row.status === "queued")).toBe(true);
    expect(await transactionsThatWrote(ids)).toBeLessThan(5);
    const spanRows = await database.db.select().from(spans).where(inArray(spans.executionId, ids));
    expect(spanRows).toHaveLength(120);
  });

  it("fails only the request the database refuses; the others of its batch are committed", async () => {
    const batcher = createEnqueueBatcher({ db: database.db, ...deps });
    const outcomes = await Promise.allSettled([
      batcher.enqueue(request({ n: 1 })),
      batcher.enqueue(request({ n: 2 }, { deploymentId: "dep_does_not_exist" })),
      batcher.enqueue(request({ n: 3 })),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    const committed = outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
    const rows = await database.db.select().from(executions).where(inArray(executions.id, committed));
    expect(rows.map((row) => row.input).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([
      { n: 1 },
      { n: 3 },
    ]);
    const orphans = await database.db
      .select()
      .from(executions)
      .where(eq(executions.deploymentId, "dep_does_not_exist"));
    expect(orphans).toHaveLength(0);
  });

  it("fails only a request whose input PostgreSQL cannot store; the others of its batch are committed", async () => {
    const batcher = createEnqueueBatcher({ db: database.db, ...deps });
    const outcomes = await Promise.allSettled([
      batcher.enqueue(request({ n: 4 })),
      batcher.enqueue(request({ text: "nul \u0000 inside" })),
      batcher.enqueue(request({ n: 5 })),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    const committed = outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
    const rows = await database.db.select().from(executions).where(inArray(executions.id, committed));
    expect(rows.map((row) => row.input).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([
      { n: 4 },
      { n: 5 },
    ]);
  });

  it("writes nothing for a request whose deadline passed, before or during its transaction", async () => {
    const batcher = createEnqueueBatcher({ db: database.db, ...deps });
    const before = await database.db.select({ id: executions.id }).from(executions);
    let reads = 0;
    // Still valid when the batch is built, expired by the time the rows are written: the commit must not keep it.
    const expiresDuringWrite = {
      get expired() {
        reads += 1;
        return reads > 1;
      },
    };
    const outcomes = await Promise.allSettled([
      batcher.enqueue({ ...request({ n: "expired" }), deadline: { expired: true } }),
      batcher.enqueue({ ...request({ n: "late" }), deadline: expiresDuringWrite }),
      batcher.enqueue(request({ n: "kept" })),
    ]);
    expect(outcomes[0]).toMatchObject({ status: "rejected", reason: expect.any(DeadlineExpiredError) });
    expect(outcomes[1]).toMatchObject({ status: "rejected", reason: expect.any(DeadlineExpiredError) });
    expect(outcomes[2]?.status).toBe("fulfilled");
    const after = await database.db.select({ id: executions.id, input: executions.input }).from(executions);
    const added = after.filter((row) => !before.some((old) => old.id === row.id));
    expect(added.map((row) => row.input)).toEqual([{ n: "kept" }]);
    const allSpans = await database.db.select({ executionId: spans.executionId }).from(spans);
    expect(allSpans.every((span) => after.some((row) => row.id === span.executionId))).toBe(true);
  });
});
