import { type PGlite, parse, protocol, type QueryOptions, type Results, type Transaction } from "@electric-sql/pglite";
import { genericPlanMarker } from "./generic-plan-marker.ts";

interface NamedStatement {
  name: string;
  parameterTypes: number[];
}

/**
 * Named statements kept at once, the least recently used closed past it: room for every statement
 * the platform repeats, while texts with values written into them pass through without piling up
 * plans in PGlite's memory.
 */
export const embeddedStatementCapacity = 200;

/** Counts across caches, so that two caches on one PGlite never choose the same name. */
let statementSequence = 0;

type PlanCacheMode = "auto" | "force_generic_plan";

/**
 * Sets the session's plan mode, as an unnamed statement sent ahead of a bind in the same message.
 * Its own sync ends its implicit transaction, so the statement after it may be one that cannot run
 * in a transaction block (VACUUM), and the mode holds even if that statement fails.
 */
function planModeMessages(mode: PlanCacheMode): Uint8Array[] {
  return [
    protocol.serialize.parse({ text: `set plan_cache_mode = ${mode}` }),
    protocol.serialize.bind({}),
    protocol.serialize.execute({}),
    protocol.serialize.sync(),
  ];
}

/**
 * The session's mode as the caches on one PGlite last set it (they share its session); unknown
 * after a failed call, and then set again by the next statement outside a transaction.
 */
const planModes = new WeakMap<PGlite, { mode: PlanCacheMode | undefined }>();

/**
 * Runs PGlite's statements as named prepared statements, keyed by their text, so that each is
 * parsed once and, after PostgreSQL's first few custom plans, planned once: PGlite's own `query`
 * parses and plans every statement again, and for the engine's statements planning was most of
 * their cost (figures in docs/decisions/0082-embedded-statement-cache.md). Queries with a blob or their own parameter types go
 * through PGlite's `query` as before. The client is `pglite` itself with `query` and `transaction`
 * (what Drizzle's driver calls) replaced. Statements opened by `genericPlan` run with the session's
 * `plan_cache_mode` forced to generic plans, the others with PostgreSQL's choice; the mode is set
 * only when it changes, in the message that binds the statement, and never inside a transaction
 * (which may have failed, and whose rollback would undo it): there a statement runs in the mode it finds.
 */
export function withStatementCache(pglite: PGlite, capacity = embeddedStatementCapacity): PGlite {
  const statements = new Map<string, NamedStatement>();
  const session = planModes.get(pglite) ?? { mode: "auto" };
  planModes.set(pglite, session);

  async function prepare(text: string): Promise<NamedStatement> {
    const known = statements.get(text);
    if (known !== undefined) {
      statements.delete(text);
      statements.set(text, known);
      return known;
    }
    statementSequence += 1;
    const name = `weft_statement_${statementSequence}`;
    const described = await pglite.execProtocolStream(
      Buffer.concat([
        protocol.serialize.parse({ name, text }),
        protocol.serialize.describe({ type: "S", name }),
        protocol.serialize.sync(),
      ]),
      { syncToFs: false },
    );
    const statement = { name, parameterTypes: parse.parseDescribeStatementResults(described) };
    statements.set(text, statement);
    for (const [oldText, old] of statements) {
      if (statements.size <= capacity) break;
      statements.delete(oldText);
      await pglite.execProtocolStream(
        Buffer.concat([protocol.serialize.close({ type: "S", name: old.name }), protocol.serialize.sync()]),
        { syncToFs: false },
      );
    }
    return statement;
  }

  async function run<T>(
    text: string,
    params: unknown[],
    options: QueryOptions | undefined,
    inTransaction: boolean,
  ): Promise<Results<T>> {
    const statement = await prepare(text);
    const values = params.map((param, index) => {
      if (param === null || param === undefined) return null;
      const type = statement.parameterTypes[index] ?? 0;
      const serialize = options?.serializers?.[type] ?? pglite.serializers[type];
      return serialize === undefined ? String(param) : serialize(param);
    });
    const mode: PlanCacheMode = text.startsWith(genericPlanMarker) ? "force_generic_plan" : "auto";
    const setMode = inTransaction || mode === session.mode ? [] : planModeMessages(mode);
    let messages: Awaited<ReturnType<PGlite["execProtocolStream"]>>;
    try {
      messages = await pglite.execProtocolStream(
        Buffer.concat([
          ...setMode,
          protocol.serialize.bind({ statement: statement.name, values }),
          protocol.serialize.describe({ type: "P" }),
          protocol.serialize.execute({}),
          protocol.serialize.sync(),
        ]),
        { syncToFs: false },
      );
    } catch (error) {
      if (setMode.length > 0) session.mode = undefined;
      throw error;
    }
    if (setMode.length > 0) session.mode = mode;
    if (!inTransaction) await pglite.syncToFs();
    // Given a query's own parsers, PGlite copies its whole table of defaults for every result, which
    // cost more than the rest of reading it; a table that falls back to the defaults costs little.
    const parsers: typeof pglite.parsers =
      options?.parsers === undefined ? pglite.parsers : Object.assign(Object.create(pglite.parsers), options.parsers);
    const results = parse.parseResults(messages, parsers, { ...options, parsers: undefined });
    return (results.at(-1) ?? { rows: [], fields: [] }) as Results<T>;
  }

  const bypass = (options: QueryOptions | undefined) =>
    options?.blob !== undefined || options?.paramTypes !== undefined;

  function inTransaction(tx: Transaction): Transaction {
    return {
      query: <T>(text: string, params: unknown[] = [], options?: QueryOptions) =>
        bypass(options) || tx.closed
          ? tx.query<T>(text, params, options)
          : pglite._runExclusiveQuery(() => run<T>(text, params, options, true)),
      sql: tx.sql.bind(tx),
      exec: tx.exec.bind(tx),
      rollback: tx.rollback.bind(tx),
      listen: tx.listen.bind(tx),
      get closed() {
        return tx.closed;
      },
    };
  }

  const query = async <T>(text: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> => {
    if (bypass(options)) return pglite.query<T>(text, params, options);
    await pglite._checkReady();
    return pglite._runExclusiveTransaction(() => pglite._runExclusiveQuery(() => run<T>(text, params, options, false)));
  };
  const transaction = <T>(callback: (tx: Transaction) => Promise<T>): Promise<T> =>
    pglite.transaction((tx) => callback(inTransaction(tx)));
  return new Proxy(pglite, {
    get(target, property) {
      if (property === "query") return query;
      if (property === "transaction") return transaction;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
