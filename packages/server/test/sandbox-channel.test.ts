import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createFrameDecoder, encodeFrame, frameMarker } from "../src/engine/sandbox/channel-frames.ts";
import { type ChildChannelLimits, openChildChannel } from "../src/engine/sandbox/child-channel.ts";
import { readChildOutput } from "../src/engine/sandbox/child-output.ts";
import { createManualTimers } from "../src/shared/timers.ts";

const frame = (value: unknown) => encodeFrame(JSON.stringify(value));

describe("the channel's frame decoder", () => {
  it("gives back each frame, whole, however the bytes are cut", () => {
    const bytes = Buffer.concat([frame({ a: 1 }), frame("é€😀"), frame([]), encodeFrame("")]);
    for (const size of [1, 2, 3, 5, 7, bytes.length]) {
      const decoder = createFrameDecoder(1024);
      const frames: string[] = [];
      for (let at = 0; at < bytes.length; at += size) {
        const decoded = decoder.push(bytes.subarray(at, at + size));
        expect(decoded.ok).toBe(true);
        frames.push(...decoded.frames);
      }
      expect(frames).toEqual(['{"a":1}', '"é€😀"', "[]", ""]);
      expect(decoder.buffered()).toBe(0);
    }
  });

  it("refuses bytes that are not a frame at the first byte: Node's own IPC line, garbage", () => {
    for (const bytes of [Buffer.from("}\n"), Buffer.from([0, 1, 2, 3, 4, 5, 6])]) {
      const decoded = createFrameDecoder(1024).push(bytes);
      expect(decoded).toMatchObject({ ok: false, problem: expect.stringMatching(/^bytes that are not a frame/) });
    }
  });

  it("gives the frames before a bad byte, then keeps refusing", () => {
    const decoder = createFrameDecoder(1024);
    const decoded = decoder.push(Buffer.concat([frame(1), Buffer.from("x"), frame(2)]));
    expect(decoded).toMatchObject({ ok: false, frames: ["1"] });
    expect(decoder.push(frame(3))).toMatchObject({ ok: false, frames: [] });
    expect(decoder.buffered()).toBe(0);
  });

  it("refuses a frame one byte over the limit from its header, before holding its body", () => {
    const decoder = createFrameDecoder(1000);
    expect(decoder.push(encodeFrame("x".repeat(1000)))).toMatchObject({ ok: true, frames: ["x".repeat(1000)] });
    const header = Buffer.from([frameMarker, 0, 0, 0x03, 0xe9]);
    expect(decoder.push(header)).toEqual({
      ok: false,
      frames: [],
      problem: "a frame of 1001 bytes, over the limit of 1000",
    });
    expect(decoder.buffered()).toBe(0);
  });

  it("holds at most one frame: 600 MiB announced without end is refused at once", () => {
    const decoder = createFrameDecoder(16 * 1024 * 1024);
    const header = Buffer.alloc(5);
    header[0] = frameMarker;
    header.writeUInt32BE(600 * 1024 * 1024, 1);
    expect(decoder.push(header).ok).toBe(false);
  });
});

interface ChannelHooks {
  onMessage?(raw: unknown): void;
  onViolation?(problem: string): void;
}

function channelUnderTest(limits: Partial<ChildChannelLimits> = {}, hooks: ChannelHooks = {}) {
  const socket = new PassThrough();
  const written: Buffer[] = [];
  const toChild = new PassThrough();
  const duplex = Object.assign(socket, {
    write: (chunk: Buffer) => {
      written.push(chunk);
      return toChild.write(chunk);
    },
  });
  let now = 0;
  const timers = createManualTimers();
  const messages: unknown[] = [];
  const violations: string[] = [];
  const overBudget: number[] = [];
  const channel = openChildChannel({
    socket: duplex,
    limits: {
      maxFrameBytes: 1024,
      maxFramesPerSecond: 100,
      maxBytesPerSecond: 10_000,
      maxPendingBytes: 1_000_000,
      ...limits,
    },
    now: () => now,
    timers,
    onMessage: (raw) => {
      messages.push(raw);
      hooks.onMessage?.(raw);
    },
    onOverBudget: (secondsInRow) => overBudget.push(secondsInRow),
    onViolation: (problem) => {
      violations.push(problem);
      hooks.onViolation?.(problem);
    },
  });
  return {
    socket,
    channel,
    timers,
    messages,
    violations,
    written,
    overBudget: () => overBudget,
    advance: (ms: number) => {
      now += ms;
    },
    /** Bytes as the child writes them, read as the worker reads them. */
    fromChild: async (bytes: Buffer) => {
      socket.emit("data", bytes);
      await Promise.resolve();
    },
  };
}

const frames = (from: number, to: number) =>
  Buffer.concat(Array.from({ length: to - from }, (_, i) => frame(from + i)));

describe("the worker's end of a child's channel", () => {
  it("hands each JSON frame on, and writes frames back", async () => {
    const test = channelUnderTest();
    await test.fromChild(Buffer.concat([frame({ type: "ready" }), frame({ type: "step" })]));
    expect(test.messages).toEqual([{ type: "ready" }, { type: "step" }]);
    test.channel.send({ type: "abandon", executionId: "exe_1" });
    expect(test.written).toEqual([frame({ type: "abandon", executionId: "exe_1" })]);
    expect(test.violations).toEqual([]);
  });

  it("reports a frame that is not JSON once, and reads nothing after it", async () => {
    const test = channelUnderTest();
    await test.fromChild(Buffer.concat([encodeFrame("}"), frame({ type: "ready" })]));
    await test.fromChild(frame({ type: "ready" }));
    expect(test.messages).toEqual([]);
    expect(test.violations).toEqual(["a frame whose text is not JSON"]);
  });

  it("reports Node's own IPC line `}\\n` as bytes that are not a frame", async () => {
    const test = channelUnderTest();
    await test.fromChild(Buffer.from("}\n"));
    expect(test.violations).toEqual(["bytes that are not a frame (7d 0a)"]);
  });

  it("hands on at most the second's message budget, holds the rest unread, and hands it on in the next seconds", async () => {
    const test = channelUnderTest({ maxFramesPerSecond: 100 });
    await test.fromChild(frames(0, 250));
    expect(test.messages).toHaveLength(100);
    expect(test.socket.isPaused()).toBe(true);
    expect(test.overBudget()).toEqual([1]);
    // Bytes delivered while paused (a child's exit resumes its streams) wait behind the others.
    await test.fromChild(frame(250));
    expect(test.messages).toHaveLength(100);
    expect(test.timers.pending()).toBe(1);
    test.advance(1000);
    test.timers.fireAll();
    expect(test.messages).toHaveLength(200);
    expect(test.socket.isPaused()).toBe(true);
    test.advance(1000);
    test.timers.fireAll();
    expect(test.messages).toEqual(Array.from({ length: 251 }, (_, index) => index));
    expect(test.socket.isPaused()).toBe(false);
    expect(test.overBudget()).toEqual([1, 2]);
    expect(test.violations).toEqual([]);
  });

  it("counts the seconds in a row over the budget, from one again after a second within it", async () => {
    const test = channelUnderTest({ maxFramesPerSecond: 10 });
    const overSecond = async (from: number) => {
      await test.fromChild(frames(from, from + 11));
      test.advance(1000);
      test.timers.fireAll();
    };
    await overSecond(0);
    await overSecond(100);
    await overSecond(200);
    expect(test.overBudget()).toEqual([1, 2, 3]);
    // The frames held past the third second go in the fourth, which stays within its budget.
    test.advance(1000);
    await overSecond(300);
    expect(test.overBudget()).toEqual([1, 2, 3, 1]);
    expect(test.violations).toEqual([]);
  });

  it("hands on the frames held before bytes that are not a frame, then reports them", async () => {
    const test = channelUnderTest({ maxFramesPerSecond: 2 });
    await test.fromChild(Buffer.concat([frames(0, 4), Buffer.from("}\n")]));
    expect(test.messages).toEqual([0, 1]);
    expect(test.violations).toEqual([]);
    test.advance(1000);
    test.timers.fireAll();
    expect(test.messages).toEqual([0, 1, 2, 3]);
    expect(test.violations).toEqual(["bytes that are not a frame (7d 0a)"]);
    expect(test.socket.isPaused()).toBe(true);
  });

  it("drops what it holds once the child has exited, and reads and sends nothing after", async () => {
    const test = channelUnderTest({ maxFramesPerSecond: 100 });
    await test.fromChild(frames(0, 150));
    test.channel.close();
    expect(test.timers.pending()).toBe(0);
    test.socket.resume();
    await test.fromChild(frames(150, 160));
    test.advance(1000);
    test.timers.fireAll();
    test.channel.send({ type: "abandon", executionId: "exe_1" });
    expect(test.messages).toHaveLength(100);
    expect(test.written).toEqual([]);
    expect(test.violations).toEqual([]);
  });

  it("reports a held frame that is not JSON when it is reached, and hands on nothing after it", async () => {
    const test = channelUnderTest({ maxFramesPerSecond: 2 });
    await test.fromChild(Buffer.concat([frame(1), frame(2), frame(3), encodeFrame("}"), frame(5)]));
    expect(test.violations).toEqual([]);
    test.advance(1000);
    test.timers.fireAll();
    expect(test.messages).toEqual([1, 2, 3]);
    expect(test.violations).toEqual(["a frame whose text is not JSON"]);
    expect(test.socket.isPaused()).toBe(true);
  });

  it("turns handlers that throw on a held frame, handed on by the timer, into one violation", async () => {
    const test = channelUnderTest(
      { maxFramesPerSecond: 1 },
      {
        onMessage: (raw) => {
          if (raw === "throw") throw new RangeError("boom");
        },
        onViolation: () => {
          throw new TypeError("the violation's own handler failed");
        },
      },
    );
    await test.fromChild(Buffer.concat([frame(1), frame("throw")]));
    expect(test.messages).toEqual([1]);
    test.advance(1000);
    expect(() => test.timers.fireAll()).not.toThrow();
    expect(test.messages).toEqual([1, "throw"]);
    expect(test.violations).toEqual(["a message that could not be handled (RangeError)"]);
  });

  it("counts the frames of one second against its budget, whichever reads they came in", async () => {
    const test = channelUnderTest({ maxFramesPerSecond: 100 });
    for (let read = 0; read < 99; read += 1) await test.fromChild(frame(read));
    expect(test.socket.isPaused()).toBe(false);
    await test.fromChild(Buffer.concat([frame(99), frame(100)]));
    expect(test.messages).toHaveLength(100);
    expect(test.socket.isPaused()).toBe(true);
    test.advance(1000);
    test.timers.fireAll();
    expect(test.messages).toHaveLength(101);
    expect(test.socket.isPaused()).toBe(false);
  });

  it("stops reading for the rest of the second past its byte budget, then reads on", async () => {
    const test = channelUnderTest({ maxBytesPerSecond: 100 });
    await test.fromChild(encodeFrame(JSON.stringify("x".repeat(200))));
    expect(test.socket.isPaused()).toBe(true);
    expect(test.timers.pending()).toBe(1);
    test.advance(1000);
    test.timers.fireAll();
    expect(test.socket.isPaused()).toBe(false);
    expect(test.violations).toEqual([]);
  });

  it("ends a child that stops reading what the worker sends", () => {
    const test = channelUnderTest({ maxPendingBytes: 10 });
    Object.defineProperty(test.socket, "writableLength", { value: 11 });
    test.channel.send({ type: "abandon", executionId: "exe_1" });
    expect(test.violations).toEqual(["it stopped reading its channel (11 bytes waiting)"]);
    expect(test.written).toEqual([]);
  });

  it("turns a handler that throws into a violation, not an error of the worker", async () => {
    const socket = new PassThrough();
    const violations: string[] = [];
    openChildChannel({
      socket,
      limits: { maxFrameBytes: 1024, maxFramesPerSecond: 100, maxBytesPerSecond: 10_000, maxPendingBytes: 1000 },
      now: () => 0,
      timers: createManualTimers(),
      onMessage: () => {
        throw new TypeError("boom");
      },
      onOverBudget: () => undefined,
      onViolation: (problem) => violations.push(problem),
    });
    socket.emit("data", frame(1));
    socket.emit("error", new Error("EPIPE"));
    expect(violations).toEqual(["a message that could not be handled (TypeError)"]);
  });
});

/**
 * A child's output read at 100 bytes a second in pieces of 10 at most, a flood after 3 seconds in a
 * row over that; its time passes only when the test says.
 */
function budgetedOutput() {
  const stream = new PassThrough();
  const timers = createManualTimers();
  let now = 0;
  const texts: string[] = [];
  const floods: number[] = [];
  readChildOutput(stream, {
    maxBytesPerSecond: 100,
    maxPieceBytes: 10,
    maxSecondsOverBudget: 3,
    now: () => now,
    timers,
    onText: (text) => texts.push(text),
    onFlood: () => floods.push(now),
  });
  const passTime = (ms: number) => {
    now += ms;
  };
  return { stream, timers, texts, floods, passTime };
}

describe("a child's stdout and stderr", () => {
  it("hands on at most the piece size, and pauses past the second's budget until it is over", () => {
    const { stream, timers, texts, floods, passTime } = budgetedOutput();
    stream.emit("data", Buffer.from("short"));
    stream.emit("data", Buffer.from("x".repeat(150)));
    expect(texts).toEqual(["short", "xxxxxxxxxx… (140 bytes more)"]);
    expect(stream.isPaused()).toBe(true);
    passTime(1000);
    timers.fireAll();
    expect(stream.isPaused()).toBe(false);
    stream.emit("error", new Error("EPIPE"));
    expect(floods).toEqual([]);
  });

  it("reports a flood once the output is over its budget for the seconds in a row allowed", () => {
    const { stream, timers, floods, passTime } = budgetedOutput();
    const overSecond = () => {
      stream.emit("data", Buffer.alloc(101));
      passTime(1000);
      timers.fireAll();
    };
    overSecond();
    overSecond();
    // A quiet second breaks the run.
    stream.emit("data", Buffer.alloc(10));
    passTime(1000);
    overSecond();
    overSecond();
    expect(floods).toEqual([]);
    overSecond();
    overSecond();
    expect(floods).toEqual([5000]);
  });
});
