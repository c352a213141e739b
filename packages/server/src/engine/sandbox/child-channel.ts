import type { Duplex } from "node:stream";
import type { Timers } from "../../shared/timers.ts";
import { budgetSecond, overBudget, rollSecond } from "./budget-second.ts";
import { createFrameDecoder, encodeFrame } from "./channel-frames.ts";

export interface ChildChannelLimits {
  maxFrameBytes: number;
  /** Past this many messages in a second the rest wait, unread, until the second is over. */
  maxFramesPerSecond: number;
  /** Past this many bytes in a second the channel is not read until the second is over. */
  maxBytesPerSecond: number;
  /** Bytes that may wait to be written to the child; past them the child is taken as not reading. */
  maxPendingBytes: number;
}

export interface ChildChannelOptions {
  /** The worker's end of the child's channel (its fd 3). */
  socket: Duplex;
  limits: ChildChannelLimits;
  /** Milliseconds of the injected clock, for the per-second budgets. */
  now(): number;
  timers: Timers;
  /** One parsed message, to be checked like any untrusted input. */
  onMessage(raw: unknown): void;
  /**
   * The child sent more messages than the second's budget (told once a second, with how many
   * seconds in a row it has been so): the rest wait, unread.
   */
  onOverBudget(secondsInRow: number): void;
  /** The child broke the channel's rules: called once, and nothing is read after it. */
  onViolation(problem: string): void;
}

export interface ChildChannel {
  /** Writes one message; nothing when the channel is closed or broken. */
  send(message: unknown): void;
  /** The child has exited: what is held is dropped, and nothing more is read or sent. */
  close(): void;
}

const { parse, stringify } = JSON;

function unhandled(error: unknown): string {
  return `a message that could not be handled (${error instanceof Error ? error.name : "unknown"})`;
}

/** What the channel's reading needs of the channel: whether it has ended, and how to end it for a violation. */
interface ReadingEnd {
  ended(): boolean;
  violate(problem: string): void;
}

/** Reads a child's frames within the budgets of a second, holding those past the message budget. */
interface BudgetedReader {
  receive(chunk: Buffer): void;
  /** Drops what is held and the pending pause: the channel has ended. */
  drop(): void;
}

function budgetedReader(options: ChildChannelOptions, channel: ReadingEnd): BudgetedReader {
  const { socket, limits } = options;
  const decoder = createFrameDecoder(limits.maxFrameBytes);
  const second = budgetSecond(options.now());
  /** Bytes past the held frames that are not a frame: reported once those are handed on. */
  let brokenAfterHeld: string | undefined;
  let cancelPause: (() => void) | undefined;
  /** Frames read past the second's message budget: at most one read's worth, since reading pauses. */
  let held: string[] = [];
  let nextHeld = 0;

  /** Reads nothing more until the second is over, then hands on what is held and reads on. */
  function pauseForTheSecond(): void {
    // Again even when already paused: a child's exit resumes its streams to drain them.
    socket.pause();
    if (cancelPause !== undefined) return;
    cancelPause = options.timers.after(Math.max(0, second.start + 1000 - options.now()), () => {
      cancelPause = undefined;
      if (channel.ended()) return;
      try {
        rollSecond(second, options.now());
        handOn();
        if (cancelPause === undefined && !channel.ended()) socket.resume();
      } catch (error) {
        channel.violate(unhandled(error));
      }
    });
  }

  /** Hands on the held frames the second's budget allows; past it, pauses with the rest held. */
  function handOn(): void {
    while (nextHeld < held.length && !channel.ended()) {
      if (second.frames >= limits.maxFramesPerSecond) {
        pauseForTheSecond();
        const inRow = overBudget(second);
        if (inRow !== undefined) options.onOverBudget(inRow);
        return;
      }
      const text = held[nextHeld] ?? "";
      nextHeld += 1;
      second.frames += 1;
      let value: unknown;
      try {
        value = parse(text);
      } catch {
        channel.violate("a frame whose text is not JSON");
        return;
      }
      try {
        options.onMessage(value);
      } catch (error) {
        channel.violate(unhandled(error));
        return;
      }
    }
    held = [];
    nextHeld = 0;
    if (brokenAfterHeld !== undefined) channel.violate(brokenAfterHeld);
  }

  return {
    receive(chunk) {
      if (channel.ended()) return;
      rollSecond(second, options.now());
      second.bytes += chunk.length;
      const decoded = decoder.push(chunk);
      for (const text of decoded.frames) held.push(text);
      // The frames before bad bytes are the child's too: an honest execution's end may be among them.
      if (!decoded.ok) brokenAfterHeld ??= decoded.problem;
      handOn();
      if (!decoded.ok) {
        socket.pause();
        return;
      }
      if (second.bytes > limits.maxBytesPerSecond) pauseForTheSecond();
    },
    drop() {
      cancelPause?.();
      cancelPause = undefined;
      held = [];
      nextHeld = 0;
    },
  };
}

/**
 * The worker's side of a child's channel. Every byte the child writes is read here by bounded code
 * that reports what is wrong as a violation, never by throwing: the child is the tenant's code.
 */
export function openChildChannel(options: ChildChannelOptions): ChildChannel {
  const { socket, limits } = options;
  /** A violation was reported or the channel closed: nothing more is read or sent. */
  let ended = false;

  function end(): void {
    ended = true;
    socket.pause();
    reader.drop();
  }

  function violate(problem: string): void {
    if (ended) return;
    end();
    options.onViolation(problem);
  }

  const reader = budgetedReader(options, { ended: () => ended, violate });
  socket.on("data", (chunk: Buffer) => {
    try {
      reader.receive(chunk);
    } catch (error) {
      violate(unhandled(error));
    }
  });
  // The child's end closing or failing is the child's business: its exit settles its executions.
  socket.on("error", () => undefined);

  return {
    send(message) {
      if (ended || socket.destroyed || !socket.writable) return;
      if (socket.writableLength > limits.maxPendingBytes) {
        violate(`it stopped reading its channel (${socket.writableLength} bytes waiting)`);
        return;
      }
      socket.write(encodeFrame(stringify(message)));
    },
    close: end,
  };
}
