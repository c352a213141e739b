import { createEmptyServerDatabase, createTestDatabase, startTcpProxy, testServerUrl } from "@weft/testing";
import { sql } from "drizzle-orm";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { usePostgres } from "../src/db/database.ts";

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

describe.skipIf(testServerUrl() === undefined)(
  "the LISTEN connection, lost while the server refuses connections",
  () => {
    it("listens again once the server accepts connections", async () => {
      const database = await createTestDatabase();
      const name = new URL(database.url ?? "").pathname.slice(1);
      // A database cannot refuse connections to itself: the switch is thrown from the server's own.
      const admin = new pg.Client({ connectionString: testServerUrl() });
      await admin.connect();
      const allowConnections = (allow: boolean) => admin.query(`alter database ${name} allow_connections ${allow}`);
      try {
        const received: string[] = [];
        await database.listen("connection_loss_probe", (payload) => received.push(payload));
        const { rows } = (await database.db.execute(
          sql`select pid from pg_stat_activity where datname = current_database() and query like 'listen %'`,
        )) as unknown as Rows<{ pid: number }>;
        expect(rows).toHaveLength(1);
        // As right after a restart ("the database system is starting up"): every new connection is refused.
        await allowConnections(false);
        await database.db.execute(sql`select pg_terminate_backend(${rows[0]?.pid})`);
        // The listener waits a second before its first attempt, which must fail here; no clock reaches it.
        await new Promise((resolve) => setTimeout(resolve, 2_500));
        await allowConnections(true);
        while (received.length === 0) {
          await database.db.execute(sql`select pg_notify('connection_loss_probe', 'again')`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(received[0]).toBe("again");
      } finally {
        await allowConnections(true);
        await admin.end();
        await database.destroy();
      }
    });
  },
);

// Found by the fault test: a process started while PostgreSQL restarted ended with ECONNREFUSED.
describe.skipIf(testServerUrl() === undefined)("opening a PostgreSQL database that cannot be reached yet", () => {
  it("waits for the server and then migrates", async () => {
    const empty = await createEmptyServerDatabase(testServerUrl() ?? "");
    const proxy = await startTcpProxy(empty.url);
    try {
      proxy.cut();
      const opening = usePostgres(proxy.url);
      while (proxy.refusals() === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      proxy.restore();
      const handle = await opening;
      const { rows } = (await handle.db.execute(sql`select count(*)::int as n from executions`)) as unknown as Rows<{
        n: number;
      }>;
      expect(rows).toEqual([{ n: 0 }]);
      await handle.close();
    } finally {
      proxy.restore();
      await proxy.close();
      await empty.drop();
    }
  });
});
