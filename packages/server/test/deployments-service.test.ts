import { createTestDatabase, ensureTestProject, type TestDatabase } from "@weft/testing";
import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executions, idempotencyKeys } from "../src/db/schema/index.ts";
import { createDeployment } from "../src/deployments/create-deployment.ts";
import { activateDeployment, getActiveDeployment, listDeployments } from "../src/deployments/read-deployments.ts";
import { enqueueExecution } from "../src/engine/enqueue-execution.ts";
import { validateJsonSchema } from "../src/schemas/validate-json-schema.ts";
import { createManualClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";
import { secretMatchesHash } from "../src/shared/secrets.ts";
import { valueOrThrow } from "../src/shared/service-result.ts";

const clock = createManualClock();
const deps = { clock, ids: createIdGenerator(clock) };
let database: TestDatabase;
const firstPage = { direction: "forward" as const, size: 10, cursor: undefined };

const manifest = {
  version: 1,
  workflows: [
    {
      name: "echo",
      inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      concurrency: 2,
    },
  ],
  forms: [
    {
      name: "contact",
      workflow: "echo",
      schema: { type: "object", properties: { n: { type: "number" } } },
      basicAuth: { username: "ann", password: "open sesame" },
    },
  ],
  webhooks: [{ name: "hook", workflow: "echo", secret: { header: "X-Hook-Secret", value: "s3cret-value" } }],
};

beforeAll(async () => {
  database = await createTestDatabase();
  for (const projectId of ["prj_a", "prj_b", "prj_c", "prj_i", "prj_n"]) {
    await ensureTestProject(database.db, deps, projectId);
  }
});
afterAll(async () => {
  await database.destroy();
});

describe("deployments", () => {
  it("numbers deployments per project, activates the newest and stores secrets only as digests", async () => {
    const first = valueOrThrow(
      await createDeployment(database.db, deps, {
        projectId: "prj_a",
        manifest,
        bundle: "export default {}",
      }),
    );
    const second = valueOrThrow(
      await createDeployment(database.db, deps, {
        projectId: "prj_a",
        manifest,
        bundle: "export default 2",
      }),
    );
    const other = valueOrThrow(
      await createDeployment(database.db, deps, {
        projectId: "prj_b",
        manifest,
        bundle: "export default 3",
      }),
    );
    expect([first.number, second.number, other.number]).toEqual([1, 2, 1]);
    expect((await getActiveDeployment(database.db, "prj_a"))?.id).toBe(second.id);

    const stored = second.manifest;
    expect(JSON.stringify(stored)).not.toContain("open sesame");
    expect(JSON.stringify(stored)).not.toContain("s3cret-value");
    const webhookSecret = stored.webhooks[0]?.secret;
    expect(webhookSecret?.header).toBe("x-hook-secret");
    expect(secretMatchesHash("s3cret-value", webhookSecret?.valueHash ?? "")).toBe(true);
    expect(secretMatchesHash("open sesame", stored.forms[0]?.basicAuth?.passwordHash ?? "")).toBe(true);

    const rolledBack = valueOrThrow(
      await activateDeployment(database.db, deps, { projectId: "prj_a", deploymentId: first.id }),
    );
    expect(rolledBack.active).toBe(true);
    expect((await getActiveDeployment(database.db, "prj_a"))?.id).toBe(first.id);
    const listed = await listDeployments(database.db, { projectId: "prj_a", page: firstPage });
    expect(listed.rows.map((entry) => [entry.number, entry.active])).toEqual([
      [1, true],
      [2, false],
    ]);
    const foreign = await activateDeployment(database.db, deps, { projectId: "prj_b", deploymentId: first.id });
    expect(foreign).toMatchObject({ ok: false, failure: { kind: "not_found" } });
  });

  it("rejects an invalid manifest with one issue per problem and stores nothing", async () => {
    const before = await listDeployments(database.db, { projectId: "prj_c", page: firstPage });
    const bad = {
      version: 1,
      workflows: [{ name: "Bad Name", retries: { maxAttempts: 0, minDelayMs: 5, maxDelayMs: 1 } }],
      forms: [{ name: "f", workflow: "missing", schema: { type: "nonsense" } }],
      webhooks: [],
    };
    const refused = await createDeployment(database.db, deps, { projectId: "prj_c", manifest: bad, bundle: "x" });
    const paths =
      refused.ok || refused.failure.kind !== "invalid" ? [] : refused.failure.issues.map((issue) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining(["workflows.0.name", "workflows.0.retries.maxAttempts", "forms.0.workflow"]),
    );
    const badSchema = { ...manifest, forms: [{ name: "f", workflow: "echo", schema: { type: "nonsense" } }] };
    const schemaError = await createDeployment(database.db, deps, {
      projectId: "prj_c",
      manifest: badSchema,
      bundle: "x",
    });
    expect(schemaError).toMatchObject({
      ok: false,
      failure: { kind: "invalid", issues: [{ path: "forms.0.schema" }] },
    });
    const emptyBundle = await createDeployment(database.db, deps, { projectId: "prj_c", manifest, bundle: "" });
    expect(emptyBundle).toMatchObject({ ok: false, failure: { kind: "invalid" } });
    const tooLarge = await createDeployment(database.db, deps, {
      projectId: "prj_c",
      manifest,
      bundle: "x".repeat(10 * 1024 * 1024 + 1),
    });
    expect(tooLarge).toMatchObject({
      ok: false,
      failure: { kind: "invalid", message: expect.stringMatching(/at most/) },
    });
    expect(await listDeployments(database.db, { projectId: "prj_c", page: firstPage })).toEqual(before);
    expect(await getActiveDeployment(database.db, "prj_c")).toBeUndefined();
  });
});

describe("enqueueExecution", () => {
  it("returns the same execution for an idempotency key within 24 hours, and a new one after", async () => {
    const deployment = valueOrThrow(
      await createDeployment(database.db, deps, { projectId: "prj_i", manifest, bundle: "x" }),
    );
    const request = {
      projectId: "prj_i",
      deploymentId: deployment.id,
      workflow: "echo",
      input: { n: 1 },
      idempotencyKey: "order-42",
      trigger: { kind: "api" as const },
    };
    const enqueue = async () =>
      valueOrThrow(await database.db.transaction((tx) => enqueueExecution(tx, deps, request)));
    const first = await enqueue();
    clock.advance(23 * 60 * 60 * 1000);
    const again = await enqueue();
    expect(first.created).toBe(true);
    expect(again).toEqual({ executionId: first.executionId, created: false });
    clock.advance(60 * 60 * 1000);
    const later = await enqueue();
    expect(later.created).toBe(true);
    expect(later.executionId).not.toBe(first.executionId);
    const [row] = await database.db.select().from(executions).where(eq(executions.id, first.executionId));
    expect(row).toMatchObject({ status: "queued", attempt: 1, concurrencyLimit: 2, input: { n: 1 } });
    const [keys] = await database.db.select({ n: count() }).from(idempotencyKeys);
    expect(keys?.n).toBe(1);
  });

  it("refuses a workflow the deployment does not define, inserting nothing", async () => {
    const deployment = valueOrThrow(
      await createDeployment(database.db, deps, { projectId: "prj_n", manifest, bundle: "x" }),
    );
    const refused = await database.db.transaction((tx) =>
      enqueueExecution(tx, deps, {
        projectId: "prj_n",
        deploymentId: deployment.id,
        workflow: "nope",
        input: {},
        trigger: { kind: "api" },
      }),
    );
    expect(refused).toMatchObject({ ok: false, failure: { kind: "not_found" } });
    const [rows] = await database.db.select({ n: count() }).from(executions).where(eq(executions.projectId, "prj_n"));
    expect(rows?.n).toBe(0);
  });
});

describe("validateJsonSchema", () => {
  const schema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
  it("accepts a matching value and reports each problem with its path", () => {
    expect(validateJsonSchema(schema, { n: 2 })).toEqual({ ok: true, value: { n: 2 } });
    const result = validateJsonSchema(schema, { n: "two" });
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.issues.map((issue) => issue.path)).toEqual(["n"]);
  });
});
