import type { ExecutionTimeline } from "@weft/contract";
import type { Database } from "../db/database.ts";
import { type CountScope, countExecutions } from "./count-executions.ts";

export interface TimelineRequest {
  of: CountScope;
  from: Date;
  to: Date;
  bucket: "minute" | "hour" | "day";
}

/** `studio.executionTimeline`: executions created in [from, to), counted per UTC bucket and status. */
export async function readExecutionTimeline(db: Database, request: TimelineRequest): Promise<ExecutionTimeline> {
  const buckets = new Map<string, Record<string, number>>();
  for (const row of await countExecutions(db, request)) {
    const start = (row.start ?? request.from).toISOString();
    const counts = buckets.get(start) ?? {};
    counts[row.status] = row.n;
    buckets.set(start, counts);
  }
  return { bucket: request.bucket, buckets: [...buckets].map(([start, counts]) => ({ start, counts })) };
}
