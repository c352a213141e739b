import { describe, expect, it } from "vitest";
import { type QueueCount, queueAllowance, waitsPastBound } from "../src/backpressure/predicted-wait.ts";

const boundMs = 5000;
const at = (waitedMs: number, readAtMs: number) => ({ waitedMs, readAtMs });

describe("waitsPastBound: would an execution queued now wait past the bound", () => {
  it("without a reading before, refuses once the oldest has waited past the bound, not at it", () => {
    expect(waitsPastBound(at(5000, 10_000), undefined, boundMs)).toBe(false);
    expect(waitsPastBound(at(5001, 10_000), undefined, boundMs)).toBe(true);
  });

  it("for a queue that fills faster than it drains, refuses before the oldest reaches the bound", () => {
    // The oldest wait grew 250 ms in a second: the head moves at 0.75, a new execution waits 4/0.75 s.
    expect(waitsPastBound(at(4000, 11_000), at(3750, 10_000), boundMs)).toBe(true);
    expect(waitsPastBound(at(3700, 11_000), at(3450, 10_000), boundMs)).toBe(false);
  });

  it("never refuses before half the bound, however still the head stood", () => {
    expect(waitsPastBound(at(2500, 11_000), at(1500, 10_000), boundMs)).toBe(false);
    expect(waitsPastBound(at(2501, 11_000), at(1501, 10_000), boundMs)).toBe(true);
  });

  it("is never looser than the bound itself, however fast the queue drains", () => {
    expect(waitsPastBound(at(5001, 11_000), at(8000, 10_000), boundMs)).toBe(true);
    expect(waitsPastBound(at(4999, 11_000), at(8000, 10_000), boundMs)).toBe(false);
  });

  it("covers what is queued until the next reading", () => {
    // At a pace of 0.75, an execution queued a second from now waits (3 500 + 250) / 0.75 = 5 000 ms.
    expect(waitsPastBound(at(3500, 11_000), at(3250, 10_000), boundMs, 1000)).toBe(false);
    expect(waitsPastBound(at(3600, 11_000), at(3350, 10_000), boundMs, 1000)).toBe(true);
    expect(waitsPastBound(at(3600, 11_000), at(3350, 10_000), boundMs)).toBe(false);
  });

  it("takes two readings at the same instant as no reading before", () => {
    expect(waitsPastBound(at(4000, 10_000), at(3000, 10_000), boundMs)).toBe(false);
  });
});

/** A count of `queued` whose oldest had waited `oldestWaitedMs`, read at `readAtMs`, with `admitted` after it. */
const counted = (queued: number | undefined, oldestWaitedMs: number, readAtMs: number, admitted = 0): QueueCount => ({
  queued,
  oldestWaitedMs,
  readAtMs,
  admitted,
});

describe("queueAllowance: how many new executions a queue may take until the next reading", () => {
  it("holds a queue whose oldest has waited half the bound to as many as left it", () => {
    // 2 000 counted, 900 admitted, 2 100 counted a second later: 800 left; 5 s at 800/s is room for 4 000.
    expect(queueAllowance(counted(2100, 2501, 11_000), counted(2000, 1800, 10_000, 900), boundMs)).toBe(800);
    // Before half the bound, the room alone: 4 000 − 2 100.
    expect(queueAllowance(counted(2100, 2500, 11_000), counted(2000, 1800, 10_000, 900), boundMs)).toBe(1900);
  });

  it("lets a long queue take only what still starts within the bound", () => {
    // 1 000 left in a second: 5 000 start within 5 s, 4 600 are queued.
    expect(queueAllowance(counted(4600, 3000, 11_000), counted(5000, 2500, 10_000, 600), boundMs)).toBe(400);
    expect(queueAllowance(counted(6000, 3000, 11_000), counted(5000, 2500, 10_000, 2000), boundMs)).toBe(0);
  });

  it("says nothing of a queue that ran dry between the readings: a burst into it is not the workers' pace", () => {
    // The oldest now arrived 400 ms ago, after the reading before: the queue had emptied.
    expect(queueAllowance(counted(3000, 400, 11_000), counted(100, 300, 10_000, 3000), boundMs)).toBeUndefined();
    // Had it been there at the reading before, 100 left in a second would be the pace, and 3 000 too many.
    expect(queueAllowance(counted(3000, 1000, 11_000), counted(100, 300, 10_000, 3000), boundMs)).toBe(0);
  });

  it("says nothing without two counts a while apart, or when nothing left the queue", () => {
    expect(queueAllowance(counted(100, 2000, 11_000), undefined, boundMs)).toBeUndefined();
    expect(queueAllowance(counted(100, 2000, 11_000), counted(undefined, 1000, 10_000), boundMs)).toBeUndefined();
    expect(queueAllowance(counted(undefined, 2000, 11_000), counted(100, 1000, 10_000), boundMs)).toBeUndefined();
    expect(queueAllowance(counted(100, 2000, 10_000), counted(200, 1000, 10_000), boundMs)).toBeUndefined();
    expect(queueAllowance(counted(300, 2000, 11_000), counted(200, 1000, 10_000, 100), boundMs)).toBeUndefined();
  });
});
