import type { ServiceResult } from "../shared/service-result.ts";
import type { Database, Transaction } from "./database.ts";

/** Carries a failure out of `db.transaction`, whose only way to roll back is a throw. */
class RolledBack extends Error {
  readonly result: ServiceResult<never>;

  constructor(result: ServiceResult<never>) {
    super("rolled back");
    this.result = result;
  }
}

/**
 * Runs `work` in a transaction that commits only when it answers ok. A failure found after some
 * writes (a name another project holds, noticed once the claim is made) rolls all of them back and
 * is returned as a value, so that a refusal never leaves half a change.
 */
export async function transactionWithResult<T>(
  db: Database,
  work: (tx: Transaction) => Promise<ServiceResult<T>>,
): Promise<ServiceResult<T>> {
  try {
    return await db.transaction(async (tx) => {
      const result = await work(tx);
      if (!result.ok) throw new RolledBack(result);
      return result;
    });
  } catch (error) {
    if (error instanceof RolledBack) return error.result;
    throw error;
  }
}
