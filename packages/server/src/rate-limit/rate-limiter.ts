import { RateLimiterDrizzle, RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import type { DatabaseHandle } from "../db/database.ts";
import { rateLimitCounters } from "../db/schema/index.ts";
import { hashSecret } from "../shared/secrets.ts";

export type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** A fixed-window limit on how often one key (e.g. an endpoint plus a client IP) may act. */
export interface RateLimiter {
  consume(key: string): Promise<RateLimitDecision>;
}

export interface RateLimiterOptions {
  /** Distinguishes the counters of one limiter from another's in a shared store. */
  name: string;
  points: number;
  windowSeconds: number;
}

/**
 * Counts in memory for the embedded single process, and in the database (rate-limiter-flexible's
 * Drizzle store) on a PostgreSQL server, where several processes must share one count.
 */
export function createRateLimiter(database: DatabaseHandle, options: RateLimiterOptions): RateLimiter {
  const common = { keyPrefix: options.name, points: options.points, duration: options.windowSeconds };
  const limiter =
    database.kind === "postgres"
      ? new RateLimiterDrizzle({ ...common, storeClient: database.db, schema: rateLimitCounters })
      : new RateLimiterMemory(common);
  return {
    consume: async (key) => {
      try {
        // Keys hold what clients sent (a form name, a project id): hashed, any of them is a short storable text.
        await limiter.consume(hashSecret(key));
        return { allowed: true };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
        }
        throw rejection;
      }
    },
  };
}
