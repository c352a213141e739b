import type { Database, DatabaseHandle } from "@weft/server/internals";

/**
 * Makes a platform's database slow on demand: while the gate is closed, every transaction waits
 * before it begins, as when the pool is exhausted or the server is stalled. Tests close the gate,
 * make a request, let a deadline pass, then open it and wait for the held transactions to finish.
 */
export interface DatabaseGate {
  wrap(database: DatabaseHandle): DatabaseHandle;
  close(): void;
  open(): void;
  /** Resolves once a transaction is waiting at the closed gate. */
  waiting(): Promise<void>;
  /** Resolves when every transaction that waited at the gate has committed or rolled back. */
  settled(): Promise<void>;
}

export function createDatabaseGate(): DatabaseGate {
  let closed: { opened: Promise<void>; open: () => void } | undefined;
  let waitingCount = 0;
  let onWaiting: (() => void) | undefined;
  const held: Promise<unknown>[] = [];

  const gateTransaction =
    (db: Database): Database["transaction"] =>
    (callback, config) => {
      const gate = closed;
      if (gate === undefined) return db.transaction(callback, config);
      waitingCount += 1;
      onWaiting?.();
      const run = gate.opened.then(() => db.transaction(callback, config));
      held.push(run);
      return run;
    };

  return {
    wrap: (database) => {
      const transaction = gateTransaction(database.db);
      const db = new Proxy(database.db, {
        get: (target, property, receiver) =>
          property === "transaction" ? transaction : Reflect.get(target, property, receiver),
      });
      return { ...database, db };
    },
    close: () => {
      let open: () => void = () => undefined;
      const opened = new Promise<void>((resolve) => {
        open = resolve;
      });
      closed = { opened, open };
    },
    open: () => {
      closed?.open();
      closed = undefined;
      waitingCount = 0;
    },
    waiting: () =>
      new Promise<void>((resolve) => {
        if (waitingCount > 0) resolve();
        else onWaiting = resolve;
      }),
    settled: async () => {
      await Promise.allSettled(held);
    },
  };
}
