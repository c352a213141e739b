import { createTestDatabase, type TestDatabase } from "@weft/testing";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { genericPlanRows } from "../src/db/generic-plan.ts";
import { genericPlanMarker } from "../src/db/generic-plan-marker.ts";
import { sqlRows } from "../src/engine/sql-rows.ts";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  await database.db.execute(sql`create table plan_probe (id int primary key, status text not null)`);
  await database.db.execute(sql`insert into plan_probe select g, 'queued' from generate_series(1, 100) g`);
});

afterAll(async () => {
  await database.destroy();
});

interface Prepared {
  statement: string;
  generic: number;
  custom: number;
}

describe("statements planned once (genericPlanRows)", () => {
  it("prepares one statement per text on the connection, whatever the values, and answers its rows", async () => {
    // One transaction, so every statement runs on the one connection whose prepared statements it lists.
    const { rows, prepared } = await database.db.transaction(async (tx) => {
      const rows: { id: number }[][] = [];
      for (const id of [3, 5, 8, 13, 21, 34, 55]) {
        rows.push(
          await genericPlanRows<{ id: number }>(
            tx,
            sql`select id from plan_probe where id = ${id} and status = 'queued'`,
          ),
        );
      }
      const prepared = await sqlRows<Prepared>(
        tx,
        sql`select statement, generic_plans::int as generic, custom_plans::int as custom
          from pg_prepared_statements where statement like ${`${genericPlanMarker}%plan_probe%`}`,
      );
      return { rows, prepared };
    });
    expect(rows).toEqual([3, 5, 8, 13, 21, 34, 55].map((id) => [{ id }]));
    expect(prepared).toHaveLength(1);
    expect((prepared[0]?.generic ?? 0) + (prepared[0]?.custom ?? 0)).toBe(7);
  });
});
