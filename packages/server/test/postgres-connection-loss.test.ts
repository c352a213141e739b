import {
  createEmptyServerDatabase,
  createTestDatabase,
  deployManifest,
  startTcpProxy,
  startTestPlatform,
  type TcpProxy,
  testServerUrl,
} from "@weft/testing";
import { eq, sql } from "drizzle-orm";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { type DatabaseHandle, usePostgres } from "../src/db/database.ts";
import { executions, workerHeartbeats } from "../src/db/schema/index.ts";

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

/**
 * Counts what a platform asks of its database (statements begun, channels listened to) and cuts the
 * proxy in front of the server at the `cutAt`-th ask, until disarmed.
 */
function cutAtAsk(proxy: TcpProxy, cutAt: number) {
  let asks = 0;
  let armed = true;
  let landed = false;
  const ask = () => {
    asks += 1;
    if (armed && asks === cutAt) {
      landed = true;
      proxy.cut();
    }
  };
  return {
    asks: () => asks,
    landed: () => landed,
    disarm: () => {
      armed = false;
    },
    wrap: (database: DatabaseHandle): DatabaseHandle => ({
      ...database,
      db: new Proxy(database.db, {
        get: (target, property, receiver) => {
          const value: unknown = Reflect.get(target, property, receiver);
          if (typeof value !== "function") return value;
          return (...args: unknown[]) => {
            ask();
            return value.apply(target, args);
          };
        },
      }),
      listen: (channel, onNotification) => {
        ask();
        return database.listen(channel, onNotification);
      },
    }),
  };
}

// Found by the fault test: a worker process restarted after a SIGKILL had migrated, and was still
// taking over the dead worker's executions, when `pg_ctl restart -m immediate` cut it off; the
// lost connection ended the process. Here the server is cut off at each ask of start-up in turn.
describe.skipIf(testServerUrl() === undefined)(
  "a platform that loses the server after migrating, still starting",
  () => {
    it("waits for the server at whichever ask it lost it, then serves and takes executions", async () => {
      const proxy = await startTcpProxy(testServerUrl() ?? "");
      const projectId = "prj_01jstartupunavailable0000000";
      const startAndServe = async (cutAt: number) => {
        const counter = cutAtAsk(proxy, cutAt);
        const refusedBefore = proxy.refusals();
        let started = false;
        const starting = startTestPlatform({ databaseServer: proxy.url, wrapDatabase: counter.wrap }).finally(() => {
          started = true;
        });
        while (!started && proxy.refusals() === refusedBefore) await new Promise((resolve) => setTimeout(resolve, 20));
        proxy.restore();
        const weft = await starting;
        counter.disarm();
        const report = { asks: counter.asks(), landed: counter.landed() };
        try {
          const registered = await weft.database.db
            .select()
            .from(workerHeartbeats)
            .where(eq(workerHeartbeats.workerId, weft.platform.worker?.id ?? ""));
          expect(registered).toHaveLength(1);
          await deployManifest(weft, projectId, {
            version: 1,
            workflows: [{ name: "ingest" }],
            webhooks: [{ name: "orders", workflow: "ingest" }],
          });
          const response = await fetch(`${weft.url}/triggers/webhooks/${projectId}/orders`, {
            method: "POST",
            body: "{}",
          });
          expect(response.status).toBe(202);
          for (;;) {
            const [row] = await weft.database.db.select({ status: executions.status }).from(executions);
            if (row !== undefined && row.status !== "queued") break;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        } finally {
          await weft.stop();
        }
        return report;
      };
      try {
        const { asks } = await startAndServe(0);
        let landed = 0;
        for (let cutAt = 1; cutAt <= asks; cutAt += 1) {
          if ((await startAndServe(cutAt)).landed) landed += 1;
        }
        // Start-up asks nine things before it serves (the unconfigured plans; the worker's heartbeat, its
        // two statements of taking over and the lapsed heartbeats; four channels); the worker's first
        // claims, in the background, may add to them.
        expect(landed).toBeGreaterThanOrEqual(9);
      } finally {
        proxy.restore();
        await proxy.close();
      }
    }, 120_000);
  },
);
