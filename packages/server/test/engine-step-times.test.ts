import { describe, expect, it } from "vitest";
import { stepTimes } from "../src/engine/attempts/step-recording.ts";

describe("a step's start and end on the worker's clock", () => {
  it("places steps that ran one after the other one after the other, fractions of a millisecond included", () => {
    const handedAt = 1_000;
    const arrivedAt = new Date(2_000);
    // The child measures with fractions: gather from 0.5 to 31 ms after the hand-over, summarise from 31.
    const gather = stepTimes(handedAt, { startedMs: 0.5, durationMs: 30.5 }, arrivedAt);
    const summarise = stepTimes(handedAt, { startedMs: 31, durationMs: 20 }, arrivedAt);
    expect(summarise.startedAt.getTime()).toBeGreaterThanOrEqual(gather.finishedAt.getTime());
    expect([gather.startedAt.getTime(), gather.finishedAt.getTime()]).toEqual([1_001, 1_031]);
  });

  it("never ends a step after its arrival, whatever the child says", () => {
    const times = stepTimes(1_000, { startedMs: 500, durationMs: 30 }, new Date(1_100));
    expect([times.startedAt.getTime(), times.finishedAt.getTime()]).toEqual([1_070, 1_100]);
  });

  it("counts back from the arrival when the hand-over is not known yet", () => {
    const times = stepTimes(undefined, { startedMs: 5, durationMs: 12.4 }, new Date(1_100));
    expect([times.startedAt.getTime(), times.finishedAt.getTime()]).toEqual([1_088, 1_100]);
  });
});
