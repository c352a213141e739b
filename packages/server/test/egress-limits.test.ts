import { describe, expect, it } from "vitest";
import { createEgressByteBudget } from "../src/engine/egress/egress-byte-budget.ts";
import { egressFdShare, parseOpenFileLimits, raisedSoftLimit } from "../src/engine/egress/open-file-share.ts";

const procLimits = (soft: string, hard: string) =>
  [
    "Limit                     Soft Limit           Hard Limit           Units     ",
    "Max cpu time              unlimited            unlimited            seconds   ",
    `Max open files            ${soft.padEnd(20)} ${hard.padEnd(20)} files     `,
    "Max processes             63432                63432                processes ",
  ].join("\n");

describe("the open-file limits", () => {
  it("reads the soft and hard limit of /proc/self/limits, unlimited as Infinity", () => {
    expect(parseOpenFileLimits(procLimits("1024", "524288"))).toEqual({ soft: 1024, hard: 524288 });
    expect(parseOpenFileLimits(procLimits("20000", "unlimited"))).toEqual({
      soft: 20000,
      hard: Number.POSITIVE_INFINITY,
    });
    expect(parseOpenFileLimits("Max processes 1 1 processes\n")).toBeUndefined();
    expect(parseOpenFileLimits("Max open files            lots  lots  files\n")).toBeUndefined();
  });

  it("raises the soft limit to a higher, finite hard limit, and otherwise leaves it", () => {
    expect(raisedSoftLimit({ soft: 1024, hard: 524288 })).toBe(524288);
    expect(raisedSoftLimit({ soft: 20000, hard: 20000 })).toBeUndefined();
    expect(raisedSoftLimit({ soft: 1024, hard: Number.POSITIVE_INFINITY })).toBeUndefined();
  });

  it("gives the egress proxy half of the soft limit, at least one exchange's worth", () => {
    expect(egressFdShare(20000)).toBe(10000);
    expect(egressFdShare(1025)).toBe(512);
    expect(egressFdShare(1)).toBe(2);
    expect(egressFdShare(Number.POSITIVE_INFINITY)).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe("the egress byte budget of a sandbox child", () => {
  it("allows nothing before an execution starts, and one budget per execution started", () => {
    const budget = createEgressByteBudget(100);
    expect(budget.usedUp()).toBe(true);
    budget.executionStarted();
    expect(budget.usedUp()).toBe(false);
    expect(budget.draw(60)).toBe(true);
    expect(budget.draw(40)).toBe(true);
    expect(budget.usedUp()).toBe(true);
    expect(budget.draw(1)).toBe(false);
    budget.executionStarted();
    expect(budget.usage()).toEqual({ usedBytes: 101, allowedBytes: 200, executions: 2 });
    expect(budget.usedUp()).toBe(false);
  });

  it("keeps no more unused allowance than one budget per execution still running", () => {
    const budget = createEgressByteBudget(100);
    budget.executionStarted();
    budget.executionStarted();
    budget.draw(10);
    budget.executionEnded();
    expect(budget.usage()).toEqual({ usedBytes: 10, allowedBytes: 110, executions: 1 });
    budget.executionEnded();
    expect(budget.usage()).toEqual({ usedBytes: 10, allowedBytes: 10, executions: 0 });
    expect(budget.usedUp()).toBe(true);
    budget.executionEnded();
    expect(budget.usage().executions).toBe(0);
    budget.executionStarted();
    expect(budget.usage()).toEqual({ usedBytes: 10, allowedBytes: 110, executions: 1 });
  });
});
