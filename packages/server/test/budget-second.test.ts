import { describe, expect, it } from "vitest";
import { budgetSecond, overBudget, rollSecond } from "../src/engine/sandbox/budget-second.ts";

describe("a second of a child's stream against its budget", () => {
  it("counts a second over the budget once, however often it goes over", () => {
    const second = budgetSecond(0);
    expect(overBudget(second)).toBe(1);
    expect(overBudget(second)).toBeUndefined();
    rollSecond(second, 999);
    expect(overBudget(second)).toBeUndefined();
  });

  it("goes on counting seconds over the budget that follow one another", () => {
    const second = budgetSecond(0);
    for (const [at, inRow] of [
      [0, 1],
      [1000, 2],
      [2000, 3],
      [3400, 4],
    ] as const) {
      rollSecond(second, at);
      second.bytes += 10;
      expect(overBudget(second)).toBe(inRow);
    }
    expect(second).toMatchObject({ start: 3400, bytes: 10, over: true, overInRow: 4 });
  });

  it("starts again after a second within the budget, or a second with nothing read", () => {
    const second = budgetSecond(0);
    overBudget(second);
    rollSecond(second, 1000);
    rollSecond(second, 2000);
    expect(overBudget(second)).toBe(1);
    rollSecond(second, 4000);
    expect(second).toMatchObject({ start: 4000, over: false, overInRow: 0 });
    expect(overBudget(second)).toBe(1);
  });
});
