import { createTestDatabase, type TestDatabase } from "@weft/testing";
import { count, sql } from "drizzle-orm";
import { pgTable, text } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BudgetExceededError, withinBudget } from "../src/ingress/hot-path-budget.ts";
import { createManualTimers } from "../src/shared/timers.ts";

const probe = pgTable("budget_probe", { id: text().primaryKey() });

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  await database.db.execute(sql`create table budget_probe (id text primary key)`);
});
afterAll(() => database.destroy());

async function rows(): Promise<number> {
  const [row] = await database.db.select({ rows: count() }).from(probe);
  return row?.rows ?? 0;
}

describe("the hot-path budget", () => {
  it("returns the work's value and cancels its timer when the work is in time", async () => {
    const timers = createManualTimers();
    const outcome = await withinBudget({ budgetMs: 5000, timers }, (budget) =>
      database.db.transaction(async (tx) => {
        await tx.insert(probe).values({ id: "fast" });
        budget.throwIfExpired();
        return "done";
      }),
    );
    expect(outcome).toEqual({ ok: true, value: "done" });
    expect(timers.pending()).toBe(0);
    expect(await rows()).toBe(1);
  });

  it("answers at once when the deadline passes, and the late transaction rolls back instead of committing", async () => {
    const timers = createManualTimers();
    let inserted: () => void = () => undefined;
    const insertedSignal = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    let release: () => void = () => undefined;
    const slowDatabase = new Promise<void>((resolve) => {
      release = resolve;
    });
    let abandoned: (outcome: { committed: boolean; error?: unknown }) => void = () => undefined;
    const abandonedSignal = new Promise<{ committed: boolean; error?: unknown }>((resolve) => {
      abandoned = resolve;
    });
    const before = await rows();
    const pending = withinBudget({ budgetMs: 5000, timers, onAbandoned: abandoned }, (budget) =>
      database.db.transaction(async (tx) => {
        await tx.insert(probe).values({ id: "slow" });
        inserted();
        await slowDatabase;
        budget.throwIfExpired();
        return "too late";
      }),
    );
    await insertedSignal;
    timers.fireAll();
    expect(await pending).toEqual({ ok: false });
    release();
    const late = await abandonedSignal;
    expect(late.committed).toBe(false);
    expect(late.error).toBeInstanceOf(BudgetExceededError);
    expect(await rows()).toBe(before);
  });

  it("passes on a failure that happens in time", async () => {
    const timers = createManualTimers();
    await expect(
      withinBudget({ budgetMs: 5000, timers }, async () => {
        throw new Error("database refused");
      }),
    ).rejects.toThrow("database refused");
    expect(timers.pending()).toBe(0);
  });
});
