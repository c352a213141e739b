import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "../../db/database.ts";
import { executions } from "../../db/schema/index.ts";
import { leasedState } from "./execution-states.ts";

/**
 * Renews the leases of the executions a worker runs (not a transition: the state stays the leased
 * one); answers those it still holds, and when a cancel was asked.
 */
export async function renewLeases(
  db: Database,
  request: { workerId: string; executionIds: string[]; expiresAt: Date },
): Promise<{ id: string; cancelRequestedAt: Date | null }[]> {
  if (request.executionIds.length === 0) return [];
  return db
    .update(executions)
    .set({ leaseExpiresAt: request.expiresAt })
    .where(
      and(
        eq(executions.leaseOwner, request.workerId),
        eq(executions.status, leasedState),
        inArray(executions.id, request.executionIds),
      ),
    )
    .returning({ id: executions.id, cancelRequestedAt: executions.cancelRequestedAt });
}
