import { inArray, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { executionSteps } from "../db/schema/index.ts";

/** What a resumed execution has stored: its steps, for replay, and their size (the per-execution storage limit counts it). */
export interface StoredHistory {
  /** Step name → step. Without a prototype, so that a step named `__proto__` is a step like any other. */
  steps: Record<string, { kind: "step" | "sleep"; result: { value?: unknown } }>;
  /** Bytes of JSON text of the stored results and step logs. */
  bytes: number;
}

/** Stored steps of resumed executions, by execution id. */
export async function loadStoredSteps(db: Database, executionIds: string[]): Promise<Map<string, StoredHistory>> {
  const byExecution = new Map<string, StoredHistory>();
  if (executionIds.length === 0) return byExecution;
  const rows = await db
    .select({
      executionId: executionSteps.executionId,
      name: executionSteps.name,
      kind: executionSteps.kind,
      result: executionSteps.result,
      bytes: sql<number>`octet_length(${executionSteps.result}::text) + octet_length(${executionSteps.logs}::text)`,
    })
    .from(executionSteps)
    .where(inArray(executionSteps.executionId, executionIds));
  for (const row of rows) {
    const history = byExecution.get(row.executionId) ?? { steps: Object.create(null), bytes: 0 };
    history.steps[row.name] = { kind: row.kind, result: row.result };
    history.bytes += Number(row.bytes);
    byExecution.set(row.executionId, history);
  }
  return byExecution;
}
