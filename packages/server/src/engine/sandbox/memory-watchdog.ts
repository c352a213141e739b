import type { Timers } from "../../shared/timers.ts";

export interface WatchedProcess {
  /** `undefined` while the process is not started yet or already gone. */
  readonly pid: number | undefined;
  /** Called once a reading is over the limit; the watchdog goes on reading the others. */
  overLimit(bytes: number): void;
}

export interface MemoryWatchdogOptions {
  timers: Timers;
  intervalMs: number;
  limitBytes: number;
  /** Resident bytes of the process and everything beneath it, or `undefined` when they cannot be read. */
  readBytes(pid: number): number | undefined;
  watched(): Iterable<WatchedProcess>;
}

/**
 * Reads the resident memory of each watched process every `intervalMs` and reports those over the
 * limit. Why RSS and not the V8 heap cap alone: Buffers, typed arrays and native allocations live
 * outside the heap, so `--max-old-space-size` let 3 GB of Buffers through a 256 MB cap.
 */
export function startMemoryWatchdog(options: MemoryWatchdogOptions): { stop(): void } {
  let stopped = false;
  let cancel: () => void = () => undefined;
  const check = () => {
    for (const target of options.watched()) {
      if (target.pid === undefined) continue;
      const bytes = options.readBytes(target.pid);
      if (bytes !== undefined && bytes > options.limitBytes) target.overLimit(bytes);
    }
    if (!stopped) cancel = options.timers.after(options.intervalMs, check);
  };
  cancel = options.timers.after(options.intervalMs, check);
  return {
    stop: () => {
      stopped = true;
      cancel();
    },
  };
}
