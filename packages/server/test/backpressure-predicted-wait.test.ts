import { describe, expect, it } from "vitest";
import { waitsPastBound } from "../src/backpressure/predicted-wait.ts";

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
