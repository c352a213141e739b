/**
 * Timers handed in like the Clock, so that a deadline (such as ingress's 5-second hot-path budget)
 * can be made to pass in a test without waiting for it.
 */
export interface Timers {
  /** Calls `callback` once after `milliseconds`; the returned function cancels it. */
  after(milliseconds: number, callback: () => void): () => void;
}

export const systemTimers: Timers = {
  after: (milliseconds, callback) => {
    const handle = setTimeout(callback, milliseconds);
    return () => clearTimeout(handle);
  },
};

export interface ManualTimers extends Timers {
  /** How many timers are waiting to fire. */
  pending(): number;
  /** Fires every waiting timer now, whatever its delay. */
  fireAll(): void;
}

export function createManualTimers(): ManualTimers {
  const waiting = new Set<() => void>();
  return {
    after: (_milliseconds, callback) => {
      const entry = () => {
        waiting.delete(entry);
        callback();
      };
      waiting.add(entry);
      return () => {
        waiting.delete(entry);
      };
    },
    pending: () => waiting.size,
    fireAll: () => {
      for (const entry of [...waiting]) entry();
    },
  };
}
