import { createTestDatabase, testServerUrl } from "@weft/testing";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";

type Rows<T> = { rows: T[] };

// Found by the fault test: `pg_ctl restart -m immediate` ended every worker process, because a
// pooled connection closed while a transaction held it emitted an error nobody listened to.
describe.skipIf(testServerUrl() === undefined)("a PostgreSQL connection lost inside a transaction", () => {
  it("fails that transaction and leaves the process and the pool serving", async () => {
    const database = await createTestDatabase();
    try {
      let announcePid: (pid: number) => void = () => undefined;
      const backendPid = new Promise<number>((resolve) => {
        announcePid = resolve;
      });
      let letGo: () => void = () => undefined;
      const terminated = new Promise<void>((resolve) => {
        letGo = resolve;
      });
      const transaction = database.db.transaction(async (tx) => {
        const { rows } = (await tx.execute(sql`select pg_backend_pid() as pid`)) as unknown as Rows<{ pid: number }>;
        announcePid(Number(rows[0]?.pid));
        // Between two statements, as a transaction that waits for something else.
        await terminated;
        await tx.execute(sql`select 1`);
      });
      const outcome = transaction.then(
        () => "committed",
        () => "failed",
      );
      const pid = await backendPid;
      await database.db.execute(sql`select pg_terminate_backend(${pid})`);
      for (;;) {
        const { rows } = (await database.db.execute(
          sql`select 1 from pg_stat_activity where pid = ${pid}`,
        )) as unknown as Rows<unknown>;
        if (rows.length === 0) break;
      }
      // The server closed the socket before its backend left pg_stat_activity: a round trip later,
      // the client has read the close.
      await database.db.execute(sql`select 1`);
      letGo();
      expect(await outcome).toBe("failed");
      const { rows } = (await database.db.execute(sql`select 2 as two`)) as unknown as Rows<{ two: number }>;
      expect(rows).toEqual([{ two: 2 }]);
    } finally {
      await database.destroy();
    }
  });
});
