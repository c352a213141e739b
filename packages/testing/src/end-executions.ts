import {
  cancel,
  type Database,
  endStatementParts,
  executions,
  fail,
  finalStates,
  succeed,
} from "@weft/server/internals";
import { and, count, inArray, notInArray } from "drizzle-orm";

/** A final status a test can end an execution in. */
export type FinalStatus = (typeof finalStates)[number];

const testWorker = "wrk_test_ender";

/**
 * Ends each execution of `ids` in `status` at `now`, through the engine's end statement: the only
 * one that meters and counts an end. An execution ending `succeeded` or `failed` is leased to a
 * test worker first, as a claim would; `cancelled` ones are cancelled by the API, so they must not
 * be running. Throws when the engine refuses one.
 */
export async function endExecutionsAs(
  db: Database,
  ids: readonly string[],
  status: FinalStatus,
  end: { now: Date; message?: string },
): Promise<void> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return;
  const close = { now: end.now, attemptSpanId: undefined, attemptStatus: { code: "ok" as const }, logs: [] };
  const unfinished = and(inArray(executions.id, unique), notInArray(executions.status, [...finalStates]));
  const [found] = await db.select({ n: count() }).from(executions).where(unfinished);
  if (found?.n !== unique.length) throw new Error("an execution to end had ended already, or does not exist");
  if (status !== "cancelled")
    await db.update(executions).set({ status: "running", leaseOwner: testWorker }).where(unfinished);
  for (const executionId of unique) {
    const lease = { executionId, workerId: testWorker };
    const error = { name: "Error", message: end.message ?? "ended by the test" };
    const outcome =
      status === "succeeded"
        ? await succeed(db, endStatementParts, lease, close, { value: null })
        : status === "failed"
          ? await fail(db, endStatementParts, lease, close, error)
          : await cancel(db, endStatementParts, { executionId }, close);
    if (outcome !== "taken") throw new Error(`the engine refused to end ${executionId} as ${status}`);
  }
}
