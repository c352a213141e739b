import { describe, expect, it } from "vitest";
import { formatDuration, renderSpanTree } from "../src/span-tree.ts";

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();

describe("renderSpanTree", () => {
  it("nests spans under their parents in start order, with durations and status", () => {
    const lines = renderSpanTree([
      { spanId: "c", parentSpanId: "b", name: "step double", startTime: at(20), endTime: at(25), status: "ok" },
      { spanId: "a", parentSpanId: null, name: "trigger form contact", startTime: at(0), endTime: at(3), status: "ok" },
      { spanId: "b", parentSpanId: "a", name: "execution echo", startTime: at(10), endTime: at(1510), status: "ok" },
      { spanId: "d", parentSpanId: "b", name: "step notify", startTime: at(30), endTime: null, status: "unset" },
      { spanId: "e", parentSpanId: "a", name: "retry", startTime: at(2000), endTime: at(2000), status: "error" },
    ]);
    expect(lines).toEqual([
      "trigger form contact  3ms  ok",
      "├─ execution echo  1.50s  ok",
      "│  ├─ step double  5ms  ok",
      "│  └─ step notify  running  unset",
      "└─ retry  0ms  error",
    ]);
  });

  it("treats spans whose parent is missing as roots", () => {
    expect(
      renderSpanTree([
        { spanId: "x", parentSpanId: "gone", name: "orphan", startTime: at(0), endTime: at(1), status: "ok" },
      ]),
    ).toEqual(["orphan  1ms  ok"]);
  });
});

describe("formatDuration", () => {
  it.each([
    [0, "0ms"],
    [999, "999ms"],
    [1500, "1.50s"],
    [12_340, "12.3s"],
    [125_000, "2m5s"],
    [3_723_000, "1h2m"],
  ])("%d ms is %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
