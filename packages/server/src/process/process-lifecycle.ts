import type { Logger } from "../shared/logger.ts";

/** Longest a process may take to stop after SIGTERM/SIGINT before it exits anyway. */
const hardStopMs = 10_000;

/**
 * Stops gracefully on SIGTERM or SIGINT: runs `stop`, then exits 0; exits 1 if stopping fails or
 * takes longer than 10 s.
 */
export function stopOnSignals(logger: Logger, stop: () => Promise<void>, what: string): void {
  const shutdown = (signal: string) => {
    logger.info({ signal }, `${what} shutting down`);
    const hardStop = setTimeout(() => {
      logger.error(`${what} took longer than ${hardStopMs / 1000} s to stop; exiting`);
      process.exit(1);
    }, hardStopMs);
    hardStop.unref();
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, `${what} shutdown failed`);
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
}
