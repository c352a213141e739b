import { describe, expect, it } from "vitest";
import { coverRange } from "../src/studio/count-range-cover.ts";

const at = (iso: string) => new Date(iso);
const span = (segments: Array<{ grain: string; from: Date; to: Date }>) =>
  segments.map((s) => `${s.grain} ${s.from.toISOString()} ${s.to.toISOString()}`);

describe("coverRange", () => {
  it("covers whole days, then hours, then minutes, with the sub-minute ends left to count directly", () => {
    const cover = coverRange(at("2026-03-01T22:58:30.500Z"), at("2026-03-04T01:02:10.000Z"), "day");
    expect(span(cover.segments)).toEqual([
      "minute 2026-03-01T22:59:00.000Z 2026-03-01T23:00:00.000Z",
      "hour 2026-03-01T23:00:00.000Z 2026-03-02T00:00:00.000Z",
      "day 2026-03-02T00:00:00.000Z 2026-03-04T00:00:00.000Z",
      "hour 2026-03-04T00:00:00.000Z 2026-03-04T01:00:00.000Z",
      "minute 2026-03-04T01:00:00.000Z 2026-03-04T01:02:00.000Z",
    ]);
    expect(cover.ends).toEqual([
      { from: at("2026-03-01T22:58:30.500Z"), to: at("2026-03-01T22:59:00.000Z") },
      { from: at("2026-03-04T01:02:00.000Z"), to: at("2026-03-04T01:02:10.000Z") },
    ]);
  });

  it("uses no grain coarser than asked, so each segment lies in one bucket", () => {
    const cover = coverRange(at("2026-03-01T00:00:00.000Z"), at("2026-03-03T00:00:00.000Z"), "minute");
    expect(span(cover.segments)).toEqual(["minute 2026-03-01T00:00:00.000Z 2026-03-03T00:00:00.000Z"]);
    expect(cover.ends).toEqual([]);
  });

  it("leaves a range within one minute to the direct count, and an empty range empty", () => {
    const inside = coverRange(at("2026-03-01T00:00:10.000Z"), at("2026-03-01T00:00:50.000Z"), "hour");
    expect(inside).toEqual({
      segments: [],
      ends: [{ from: at("2026-03-01T00:00:10.000Z"), to: at("2026-03-01T00:00:50.000Z") }],
    });
    expect(coverRange(at("2026-03-01T00:00:10.000Z"), at("2026-03-01T00:00:10.000Z"), "day")).toEqual({
      segments: [],
      ends: [],
    });
  });
});
