import type { Readable } from "node:stream";
import type { Timers } from "../../shared/timers.ts";
import { budgetSecond, overBudget, rollSecond } from "./budget-second.ts";

export interface ChildOutputOptions {
  maxBytesPerSecond: number;
  /** Bytes of each piece handed on; the rest of a longer piece is counted, not kept. */
  maxPieceBytes: number;
  /** Seconds in a row over the budget after which the child is taken to flood its output. */
  maxSecondsOverBudget: number;
  now(): number;
  timers: Timers;
  /** One piece of output, at most `maxPieceBytes` of it, with a note of what was cut. */
  onText(text: string): void;
  /** Called once, when the output has been over its budget `maxSecondsOverBudget` seconds in a row. */
  onFlood(): void;
}

/**
 * Reads a sandbox child's stdout or stderr at a bounded rate: past `maxBytesPerSecond` the stream
 * is paused until the second is over, so a child writing without end is held back by its own pipe
 * instead of costing the worker a core, and a child that keeps it up is reported as flooding. An
 * error of the stream is the child's, never the worker's.
 */
export function readChildOutput(stream: Readable, options: ChildOutputOptions): void {
  const second = budgetSecond(options.now());
  let paused = false;
  let flooded = false;

  stream.on("data", (chunk: Buffer) => {
    try {
      const now = options.now();
      rollSecond(second, now);
      second.bytes += chunk.length;
      const kept = chunk.subarray(0, options.maxPieceBytes).toString("utf8");
      options.onText(
        chunk.length > options.maxPieceBytes ? `${kept}… (${chunk.length - options.maxPieceBytes} bytes more)` : kept,
      );
      if (second.bytes > options.maxBytesPerSecond && !paused) {
        const inRow = overBudget(second) ?? 0;
        if (inRow >= options.maxSecondsOverBudget && !flooded) {
          flooded = true;
          options.onFlood();
        }
        paused = true;
        stream.pause();
        options.timers.after(Math.max(0, second.start + 1000 - now), () => {
          paused = false;
          stream.resume();
        });
      }
    } catch {
      // Reading output is best effort; nothing the child wrote may end the worker.
    }
  });
  stream.on("error", () => undefined);
}
