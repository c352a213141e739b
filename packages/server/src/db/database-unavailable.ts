import { systemTimers, type Timers } from "../shared/timers.ts";

/**
 * PostgreSQL's codes for a server that is not there for the moment: shutting down or just
 * restarted (57P01-57P03), or a connection lost or never made (class 08). Node's socket errors name
 * the same when the server does not answer at all.
 */
const unavailableCodes = new Set([
  "57P01",
  "57P02",
  "57P03",
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
]);

/** node-postgres reports a connection that ended under it by these messages only, without a code. */
const unavailableMessages = [
  "Connection terminated",
  "Client has encountered a connection error and is not queryable",
  "timeout exceeded when trying to connect",
];

/**
 * Whether an error says the database cannot be reached right now (a restart, a failover), as
 * opposed to a statement that failed: the request may be sent again shortly. Looks through the
 * `cause` chain, where drizzle keeps the driver's error.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && unavailableCodes.has(code)) return true;
    if (unavailableMessages.some((message) => current instanceof Error && current.message.includes(message))) {
      return true;
    }
    current = current.cause;
  }
  return false;
}

/** What `Retry-After` says when the database is unavailable: about what a restart takes. */
export const databaseUnavailableRetryAfterSeconds = 5;

/** How long a process starting up waits for a server it cannot reach: longer than a restart takes. */
const startUpPatience = { attempts: 30, delayMs: 1000 };

/**
 * Runs `task`, and runs it again while it fails because the database cannot be reached: a process
 * that starts while PostgreSQL restarts waits for the server instead of ending. `task` must be safe
 * to run twice. Any other failure, or the last attempt's, is thrown.
 */
export async function retryWhileUnavailable<T>(
  task: () => Promise<T>,
  timers: Timers = systemTimers,
  patience: { attempts: number; delayMs: number } = startUpPatience,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await task();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || attempt >= patience.attempts) throw error;
      await new Promise<void>((resolve) => timers.after(patience.delayMs, resolve));
    }
  }
}
