import { type Database, executions } from "@weft/server/internals";
import { and, count, eq, gte, inArray, lte, min, sql } from "drizzle-orm";

/** Executions of the project that ended (succeeded or failed) between two instants, epoch milliseconds. */
export async function finishedBetween(db: Database, projectId: string, from: number, to: number): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(executions)
    .where(
      and(
        eq(executions.projectId, projectId),
        inArray(executions.status, ["succeeded", "failed"]),
        gte(executions.finishedAt, new Date(from)),
        lte(executions.finishedAt, new Date(to)),
      ),
    );
  return row?.n ?? 0;
}

/** How long the project's oldest ready execution (queued and due) has waited, in milliseconds; 0 when none waits. */
async function oldestReadyWaitMs(db: Database, projectId: string): Promise<number> {
  const [row] = await db
    .select({ since: min(executions.runAt) })
    .from(executions)
    .where(
      and(eq(executions.projectId, projectId), eq(executions.status, "queued"), sql`${executions.runAt} <= now()`),
    );
  return row?.since == null ? 0 : Math.max(0, Date.now() - row.since.getTime());
}

export interface WaitSampler {
  /** Stops sampling; the longest and the last wait seen, in milliseconds. */
  stop(): Promise<{ longestMs: number; lastMs: number }>;
}

/** Reads the oldest ready execution's wait every `everyMs` until stopped, one reading at a time. */
export function sampleOldestWait(db: Database, projectId: string, everyMs = 250): WaitSampler {
  let longestMs = 0;
  let lastMs = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      lastMs = await oldestReadyWaitMs(db, projectId);
      longestMs = Math.max(longestMs, lastMs);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return { longestMs, lastMs };
    },
  };
}
