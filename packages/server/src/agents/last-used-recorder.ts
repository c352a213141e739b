import { sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import type { Logger } from "../shared/logger.ts";
import type { Timers } from "../shared/timers.ts";

/**
 * Most time between a credential's use and its `last_used_at` in the database, in one process: a
 * request never waits for a write; the uses of this interval go out in one statement.
 */
export const lastUsedFlushIntervalMs = 5000;

export interface LastUsedRecorder {
  /** Notes that a credential was used at `atMs`; written at the next flush. */
  touch(credentialId: string, atMs: number): void;
  /** Writes what was noted now; resolves when written. */
  flush(): Promise<void>;
  /** Writes what is left and stops scheduling flushes. */
  close(): Promise<void>;
}

export function createLastUsedRecorder(deps: { db: Database; timers: Timers; logger: Logger }): LastUsedRecorder {
  let pending = new Map<string, number>();
  let cancelTimer: (() => void) | undefined;
  let closed = false;

  const flush = async () => {
    cancelTimer?.();
    cancelTimer = undefined;
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    const uses = JSON.stringify([...batch].map(([id, atMs]) => ({ id, at: new Date(atMs).toISOString() })));
    try {
      await deps.db.execute(sql`
        update credentials set last_used_at = greatest(credentials.last_used_at, used.at)
        from jsonb_to_recordset(${uses}::jsonb) as used(id text, at timestamptz)
        where credentials.id = used.id`);
    } catch (error) {
      deps.logger.warn({ err: error }, "could not store when credentials were last used");
    }
  };

  return {
    touch: (credentialId, atMs) => {
      if (closed) return;
      if ((pending.get(credentialId) ?? 0) < atMs) pending.set(credentialId, atMs);
      cancelTimer ??= deps.timers.after(lastUsedFlushIntervalMs, () => {
        void flush();
      });
    },
    flush,
    close: async () => {
      closed = true;
      await flush();
    },
  };
}
