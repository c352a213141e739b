import { sqlStateOf } from "./sql-state.ts";

/** deadlock_detected and serialization_failure: PostgreSQL rolled the transaction back, and it may run again. */
const runAgainStates = new Set(["40P01", "40001"]);

/**
 * Runs `transaction` again, up to `attempts` times in all, when PostgreSQL rolled it back as a
 * deadlock's victim. Only for work whose every effect is inside the transaction.
 */
export async function retryOnDeadlock<T>(transaction: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await transaction();
    } catch (error) {
      const state = sqlStateOf(error);
      if (attempt >= attempts || state === undefined || !runAgainStates.has(state)) throw error;
    }
  }
}
