import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { withStatementCache } from "../src/db/embedded-statement-cache.ts";
import { genericPlanMarker } from "../src/db/generic-plan-marker.ts";
import { sqlStateOf } from "../src/db/sql-state.ts";

let pglite: PGlite;

beforeAll(async () => {
  pglite = await PGlite.create();
});

// Each test starts a new cache on a fresh table, with no statement left from the one before.
beforeEach(async () => {
  await pglite.exec(`deallocate all; drop table if exists items;
    create table items (id int primary key, at timestamptz, body jsonb, big bigint, tags text[])`);
});

afterAll(async () => {
  await pglite.close();
});

async function prepared(): Promise<{ statement: string; generic: number; custom: number }[]> {
  const { rows } = await pglite.query<{ statement: string; generic_plans: number; custom_plans: number }>(
    "select statement, generic_plans::int, custom_plans::int from pg_prepared_statements order by prepare_time",
  );
  return rows.map((row) => ({ statement: row.statement, generic: row.generic_plans, custom: row.custom_plans }));
}

const insert = "insert into items (id, at, body, big, tags) values ($1, $2, $3, $4, $5) returning *";

describe("the embedded database's statement cache", () => {
  it("parses a statement once and reuses its plan, with the rows PGlite's own query returns", async () => {
    const client = withStatementCache(pglite);
    const at = new Date("2026-11-26T12:00:00.000Z");
    for (let id = 1; id <= 8; id++) {
      await client.query(insert, [id, at, { id, nested: [1, "two"] }, 2n ** 40n + BigInt(id), ["a", "b"]]);
    }
    const select = "select * from items where id >= $1 order by id";
    const cached = await client.query(select, [7]);
    const plain = await pglite.query(select, [7]);
    expect(cached.rows).toEqual(plain.rows);
    expect(cached.fields).toEqual(plain.fields);
    expect(cached.rows[0]).toMatchObject({ id: 7, at, body: { id: 7, nested: [1, "two"] }, tags: ["a", "b"] });
    const statements = await prepared();
    expect(statements.map((entry) => entry.statement)).toEqual([insert, select]);
    // PostgreSQL plans the first five executions for their values, then settles on a generic plan.
    expect(statements[0]).toMatchObject({ custom: 5, generic: 3 });
  });

  it("passes each query's row mode and parsers through, as Drizzle sets them", async () => {
    const client = withStatementCache(pglite);
    await client.query(insert, [1, new Date("2026-11-26T12:00:00.000Z"), null, 1, null]);
    const options = { rowMode: "array" as const, parsers: { 1184: (value: string) => value } };
    const { rows } = await client.query("select id, at from items", [], options);
    expect(rows).toEqual([[1, "2026-11-26 12:00:00+00"]]);
    expect(rows).toEqual((await pglite.query("select id, at from items", [], options)).rows);
  });

  it("closes the least recently used statement past its capacity", async () => {
    const client = withStatementCache(pglite, 2);
    await client.query("select 1 as one");
    await client.query("select 2 as two");
    await client.query("select 1 as one");
    await client.query("select 3 as three");
    // Which statements are left, in any order: two prepared in the same tick of PGlite's clock tie on prepare_time.
    expect((await prepared()).map((entry) => entry.statement).sort()).toEqual(["select 1 as one", "select 3 as three"]);
    expect((await client.query<{ two: number }>("select 2 as two")).rows).toEqual([{ two: 2 }]);
  });

  it("lets two caches share one PGlite without their statement names meeting", async () => {
    const first = withStatementCache(pglite);
    const second = withStatementCache(pglite);
    expect((await first.query<{ n: number }>("select 1 as n")).rows).toEqual([{ n: 1 }]);
    expect((await second.query<{ n: number }>("select 2 as n")).rows).toEqual([{ n: 2 }]);
    expect((await first.query<{ n: number }>("select 1 as n")).rows).toEqual([{ n: 1 }]);
  });

  it("keeps a database error's SQLSTATE, caches no statement that does not parse, and goes on", async () => {
    const client = withStatementCache(pglite);
    await client.query(insert, [1, null, null, null, null]);
    const duplicate = await client.query(insert, [1, null, null, null, null]).catch((error: unknown) => error);
    expect(sqlStateOf(duplicate)).toBe("23505");
    const broken = await client.query("selec nothing").catch((error: unknown) => error);
    expect(sqlStateOf(broken)).toBe("42601");
    const badValue = await client.query("select $1::int as n", ["not a number"]).catch((error: unknown) => error);
    expect(sqlStateOf(badValue)).toBe("22P02");
    expect((await prepared()).map((entry) => entry.statement)).toEqual([insert, "select $1::int as n"]);
    expect((await client.query("select $1::int as n", ["41"])).rows).toEqual([{ n: 41 }]);
  });

  it("runs inside transactions: their statements commit or roll back with them", async () => {
    const client = withStatementCache(pglite);
    await client.transaction(async (tx) => {
      await tx.query(insert, [1, null, null, null, null]);
    });
    const failed = await client
      .transaction(async (tx) => {
        await tx.query(insert, [2, null, null, null, null]);
        await tx.query(insert, [1, null, null, null, null]);
      })
      .catch((error: unknown) => error);
    expect(sqlStateOf(failed)).toBe("23505");
    expect((await client.query("select id from items order by id")).rows).toEqual([{ id: 1 }]);
    expect(pglite.isInTransaction()).toBe(false);
  });

  it("plans a statement opened by the generic plan marker generically from its first run, and the others as PostgreSQL chooses", async () => {
    const client = withStatementCache(pglite);
    await client.query(insert, [1, null, null, null, null]);
    const generic = `${genericPlanMarker} select id from items where id = $1`;
    const chosen = "select id from items where id >= $1";
    for (let run = 0; run < 6; run++) {
      await client.query(generic, [1]);
      await client.query(chosen, [1]);
    }
    const plans = async (text: string) => (await prepared()).find((entry) => entry.statement === text);
    expect(await plans(generic)).toMatchObject({ generic: 6, custom: 0 });
    expect(await plans(chosen)).toMatchObject({ generic: 1, custom: 5 });

    // The mode set ahead of a statement that fails holds: the next marked statement is generic again.
    await client.query(generic, [1]);
    await expect(client.query("select $1::int as n", ["not a number"])).rejects.toThrow();
    await client.query(generic, [1]);
    expect(await plans(generic)).toMatchObject({ generic: 8, custom: 0 });

    // Another cache on the same PGlite shares its session, and so its mode.
    const fresh = "select id from items where id <= $1";
    await withStatementCache(pglite).query(fresh, [1]);
    expect(await plans(fresh)).toMatchObject({ generic: 0, custom: 1 });
  });

  it("leaves the plan mode alone inside a transaction, and runs what cannot run in one after a marked statement", async () => {
    const client = withStatementCache(pglite);
    await client.query(insert, [1, null, null, null, null]);
    const generic = `${genericPlanMarker} select id from items where id = $1`;
    await client.query(generic, [1]);
    // A savepoint rolled back after a failure: no statement of the mode goes into the failed transaction.
    const ids = await client.transaction(async (tx) => {
      await tx.query("savepoint before_duplicate");
      await expect(tx.query(insert, [1, null, null, null, null])).rejects.toThrow();
      await tx.query("rollback to savepoint before_duplicate");
      await tx.query(insert, [2, null, null, null, null]);
      return (await tx.query<{ id: number }>("select id from items order by id")).rows;
    });
    expect(ids).toEqual([{ id: 1 }, { id: 2 }]);
    await client.query(generic, [1]);
    await client.query("vacuum items");
    await expect(client.query(`${genericPlanMarker} select $1::int as n`, ["not a number"])).rejects.toThrow();
    await client.query("vacuum items");
    await client.query("vacuum items");
  });

  it("waits for a transaction in progress rather than running inside it", async () => {
    const client = withStatementCache(pglite);
    let insideDone!: () => void;
    const inside = new Promise<void>((resolve) => {
      insideDone = resolve;
    });
    const transaction = client.transaction(async (tx) => {
      await tx.query(insert, [1, null, null, null, null]);
      await inside;
      await tx.rollback();
    });
    const outside = client.query("select count(*)::int as n from items");
    insideDone();
    await transaction.catch(() => undefined);
    expect((await outside).rows).toEqual([{ n: 0 }]);
  });
});
