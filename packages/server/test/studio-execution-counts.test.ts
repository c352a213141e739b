import {
  callRpc,
  createTeamWorkspace,
  deployManifest,
  endExecutionsAs,
  type FinalStatus,
  signedInTestPlatform,
} from "@weft/testing";
import { type SQL, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { finalStates } from "../src/engine/execution-state/index.ts";
import { sqlRows } from "../src/engine/sql-rows.ts";
import { rollUpExecutionCounts } from "../src/studio/execution-count-roll-up.ts";

// Ended executions are counted from roll-ups and their pending deltas; the views must equal a
// count of the executions themselves whatever has been rolled up, deleted or left unfinished.

const signedIn = signedInTestPlatform("owner@counts.test", {
  env: { WEFT_ROLES: "auth,api,ingress" },
  startsAt: new Date("2026-03-10T00:00:00.000Z"),
});
let workspaceId: string;
let shop: string;
let blog: string;

const manifest = { version: 1 as const, workflows: [{ name: "echo" }] };
const base = new Date("2026-03-01T00:00:00.000Z");

async function project(name: string): Promise<string> {
  const created = await signedIn.call("projects.create", { name, workspaceId });
  return (created.json as { id: string }).id;
}

/** `count` copies of one real execution of `projectId`, created `spacingSeconds` apart from `base`. */
async function seed(projectId: string, count: number, spacingSeconds: number): Promise<void> {
  const started = await callRpc(
    signedIn.weft.url,
    "workflows.run",
    { projectId, workflow: "echo", input: {} },
    { token: signedIn.identity.credential },
  );
  const template = (started.json as { executionId: string }).executionId;
  await signedIn.weft.database.db.execute(sql`insert into executions
    select (jsonb_populate_record(null::executions, to_jsonb(e) || jsonb_build_object(
      'id', e.id || '-' || i,
      'created_at', ${base.toISOString()}::timestamptz + make_interval(secs => i * ${spacingSeconds}),
      'status', 'queued'))).*
    from executions e, generate_series(1, ${count}) as i where e.id = ${template}`);
  await signedIn.weft.database.db.execute(sql`delete from executions where id = ${template}`);
}

/** Ends the executions `where` selects as `status`, through the engine: nothing else counts an end. */
async function endAs(status: FinalStatus, where: SQL): Promise<void> {
  const rows = await sqlRows<{ id: string }>(signedIn.weft.database.db, sql`select id from executions where ${where}`);
  await endExecutionsAs(
    signedIn.weft.database.db,
    rows.map((row) => row.id),
    status,
    { now: signedIn.weft.clock.now() },
  );
}

/** Ends most queued executions (each as its id's hash says), leaves some running or sleeping. */
async function endMost(): Promise<void> {
  const chosen = sql`(array['succeeded', 'succeeded', 'failed', 'cancelled', 'running', 'sleeping', 'queued'])[1 + abs(hashtext(id)) % 7]`;
  for (const status of finalStates) await endAs(status, sql`status = 'queued' and ${chosen} = ${status}`);
  await signedIn.weft.database.db.execute(sql`update executions set status = ${chosen}
    where status = 'queued' and ${chosen} in ('running', 'sleeping')`);
}

type Counts = Array<{ start: string; counts: Record<string, number> }>;

/** The timeline counted from the executions themselves. */
async function counted(of: string, from: Date, to: Date, bucket: string): Promise<Counts> {
  const scope = of === workspaceId ? sql`(select id from projects where workspace_id = ${of})` : sql`(${of})`;
  const rows = await sqlRows<{ start: string | Date; status: string; n: number }>(
    signedIn.weft.database.db,
    sql`select date_trunc(${bucket}, created_at, 'UTC') as start, status, count(*)::int as n from executions
      where project_id in ${scope} and created_at >= ${from} and created_at < ${to} group by 1, 2 order by 1, 2`,
  );
  const buckets = new Map<string, Record<string, number>>();
  for (const row of rows) {
    const start = new Date(row.start).toISOString();
    buckets.set(start, { ...buckets.get(start), [row.status]: row.n });
  }
  return [...buckets].map(([start, counts]) => ({ start, counts }));
}

const ranges: Array<{ from: Date; to: Date; bucket: "minute" | "hour" | "day" }> = [
  { from: new Date("2026-03-01T05:17:23.456Z"), to: new Date("2026-03-02T04:03:07.001Z"), bucket: "minute" },
  { from: new Date("2026-03-01T00:00:00.000Z"), to: new Date("2026-03-02T00:00:00.000Z"), bucket: "minute" },
  { from: new Date("2026-03-01T00:00:59.999Z"), to: new Date("2026-03-01T00:01:00.001Z"), bucket: "minute" },
  { from: new Date("2026-03-01T01:30:30.000Z"), to: new Date("2026-03-08T22:10:10.500Z"), bucket: "hour" },
  { from: new Date("2026-02-27T13:00:00.000Z"), to: new Date("2026-03-09T09:00:00.000Z"), bucket: "hour" },
  { from: new Date("2026-02-20T06:06:06.006Z"), to: new Date("2026-04-20T00:00:00.000Z"), bucket: "day" },
];

async function expectViewsMatchExecutions(): Promise<void> {
  for (const of of [shop, blog, workspaceId])
    for (const range of ranges) {
      const target = of === workspaceId ? { workspaceId } : { projectId: of };
      const answer = await signedIn.call("studio.executionTimeline", {
        ...target,
        from: range.from.toISOString(),
        to: range.to.toISOString(),
        bucket: range.bucket,
      });
      expect(answer.status).toBe(200);
      expect((answer.json as { buckets: Counts }).buckets, `${of} ${range.bucket}`).toEqual(
        await counted(of, range.from, range.to, range.bucket),
      );
    }
}

async function pendingDeltas(): Promise<number> {
  const [row] = await sqlRows<{ n: number }>(
    signedIn.weft.database.db,
    sql`select count(*)::int as n from execution_count_deltas`,
  );
  return row?.n ?? 0;
}

beforeAll(async () => {
  workspaceId = await createTeamWorkspace(signedIn.weft, signedIn.identity, "Counts");
  shop = await project("shop");
  blog = await project("blog");
  await deployManifest(signedIn.weft, shop, manifest);
  await deployManifest(signedIn.weft, blog, manifest);
  await seed(shop, 3000, 97);
  await seed(blog, 1000, 13);
  await endMost();
}, 60_000);

describe("execution counts", () => {
  it("match the executions from pending deltas alone, part rolled up, and all rolled up", async () => {
    expect(await pendingDeltas()).toBeGreaterThan(2000);
    await expectViewsMatchExecutions();

    const [some] = await sqlRows<{ id: number }>(
      signedIn.weft.database.db,
      sql`select id from execution_count_deltas order by id offset 1000 limit 1`,
    );
    await signedIn.weft.database.db.execute(sql`insert into execution_counts (project_id, grain, start, status, n)
      select project_id, g.grain, date_trunc(g.grain, minute, 'UTC'), status, sum(n)::int
      from execution_count_deltas, (values ('minute'), ('hour'), ('day')) as g(grain) where id < ${some?.id ?? 0}
      group by 1, 2, 3, 4`);
    await signedIn.weft.database.db.execute(sql`delete from execution_count_deltas where id < ${some?.id ?? 0}`);
    await expectViewsMatchExecutions();

    expect(await rollUpExecutionCounts(signedIn.weft.database.db, 700)).toBeGreaterThan(1000);
    expect(await pendingDeltas()).toBe(0);
    await expectViewsMatchExecutions();
  });

  it("count executions that end later, and forget deleted ones, dropping the counts that reach zero", async () => {
    await endMost();
    await endAs("failed", sql`status = 'running'`);
    await endAs("cancelled", sql`status = 'sleeping'`);
    await expectViewsMatchExecutions();
    await rollUpExecutionCounts(signedIn.weft.database.db);
    await expectViewsMatchExecutions();

    // As retention does: ended executions of the first day go, in batches.
    for (let batch = 0; batch < 3; batch += 1)
      await signedIn.weft.database.db.execute(sql`delete from executions where id in (
        select id from executions where status in ('succeeded', 'failed', 'cancelled')
          and created_at < '2026-03-02T00:00:00Z' order by created_at limit 400)`);
    await expectViewsMatchExecutions();
    await rollUpExecutionCounts(signedIn.weft.database.db);
    await expectViewsMatchExecutions();
    const [zero] = await sqlRows<{ n: number }>(
      signedIn.weft.database.db,
      sql`select count(*)::int as n from execution_counts where n = 0`,
    );
    expect(zero?.n).toBe(0);
  });

  it("counts the overview's last 24 hours the same way", async () => {
    signedIn.weft.clock.set(new Date("2026-03-01T20:41:13.000Z"));
    const overview = await signedIn.call("studio.overview", { workspaceId });
    const since = new Date("2026-02-28T20:41:13.000Z");
    const expected: Record<string, number> = {};
    for (const bucket of await counted(workspaceId, since, new Date("2026-03-01T20:42:00.000Z"), "year"))
      for (const [status, n] of Object.entries(bucket.counts)) expected[status] = (expected[status] ?? 0) + n;
    expect((overview.json as { executionsLast24h: Record<string, number> }).executionsLast24h).toEqual(expected);
    signedIn.weft.clock.set(new Date("2026-03-10T00:00:00.000Z"));
  });

  it("go with their project", async () => {
    await endAs("cancelled", sql`project_id = ${blog} and status = 'queued'`);
    expect(await pendingDeltas()).toBeGreaterThan(0);
    const deleted = await signedIn.call("projects.delete", { projectId: blog });
    expect(deleted.status).toBe(200);
    const [left] = await sqlRows<{ counts: number; deltas: number }>(
      signedIn.weft.database.db,
      sql`select (select count(*) from execution_counts where project_id = ${blog})::int as counts,
        (select count(*) from execution_count_deltas where project_id = ${blog})::int as deltas`,
    );
    expect(left).toEqual({ counts: 0, deltas: 0 });
    await rollUpExecutionCounts(signedIn.weft.database.db);
    const [after] = await sqlRows<{ counts: number }>(
      signedIn.weft.database.db,
      sql`select count(*)::int as counts from execution_counts where project_id = ${blog}`,
    );
    expect(after?.counts).toBe(0);
  });
});
