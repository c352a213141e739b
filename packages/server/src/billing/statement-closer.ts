import type { Database } from "../db/database.ts";
import type { Clock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import { monthOf } from "./billing-month.ts";
import type { PlanCatalogue } from "./plans.ts";
import { closePreviousMonth } from "./statements.ts";

export interface StatementCloser {
  /** Called on every poll of the worker: closes last month once this process sees a new month begin. */
  tick(): void;
  /** Closes last month now; resolves with how many statements this call wrote. */
  close(): Promise<number>;
}

/**
 * Every worker closes the previous month on its first poll of a month; the statements' primary key
 * lets the first one win, so the month is closed once whichever worker gets there first.
 */
export function createStatementCloser(deps: {
  db: Database;
  clock: Clock;
  logger: Logger;
  catalogue: PlanCatalogue;
}): StatementCloser {
  let closedFor: string | undefined;
  let running = false;
  const close = () => closePreviousMonth(deps.db, { catalogue: deps.catalogue, now: deps.clock.now() });
  return {
    tick() {
      const month = monthOf(deps.clock.now()).day;
      if (closedFor === month || running) return;
      running = true;
      close()
        .then(() => {
          closedFor = month;
        })
        .catch((error: unknown) => deps.logger.error({ err: error }, "closing last month's statements failed"))
        .finally(() => {
          running = false;
        });
    },
    close,
  };
}
