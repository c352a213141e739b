import type { Config } from "../config/config.ts";
import { ConfigError, type Environment, parseConfig } from "../config/parse-config.ts";
import type { Logger } from "../shared/logger.ts";

/** Longest a process may take to stop after SIGTERM/SIGINT before it exits anyway. */
const hardStopMs = 10_000;

/** Parses the configuration of a process entry point; a bad value ends the process with one line and exit code 1. */
export function parseConfigOrExit(env: Environment, program: string): Config {
  try {
    return parseConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${program}: invalid configuration: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

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
