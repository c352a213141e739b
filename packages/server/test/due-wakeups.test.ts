import { describe, expect, it } from "vitest";
import { createDueWakeups, wakeupStepMs } from "../src/engine/due-wakeups.ts";
import { createManualClock } from "../src/shared/clock.ts";
import type { Timers } from "../src/shared/timers.ts";

/** Timers that record each delay asked for and fire the one armed when told. */
function recordingTimers() {
  const armed: { delay: number; callback: () => void; cancelled: boolean }[] = [];
  const timers: Timers = {
    after: (delay, callback) => {
      const entry = { delay, callback, cancelled: false };
      armed.push(entry);
      return () => {
        entry.cancelled = true;
      };
    },
  };
  const live = () => armed.filter((entry) => !entry.cancelled);
  return {
    timers,
    live,
    /** Fires the one live timer, as its delay passing would. */
    fire: () => {
      const [entry, ...others] = live();
      if (entry === undefined || others.length > 0) throw new Error(`expected one live timer, found ${live().length}`);
      entry.cancelled = true;
      entry.callback();
    },
  };
}

function setUp(capacity = 100) {
  const clock = createManualClock();
  const timers = recordingTimers();
  const woken: string[][] = [];
  const wakeups = createDueWakeups(
    { clock, timers: timers.timers },
    { capacity, onDue: (workspaceIds) => woken.push(workspaceIds) },
  );
  const at = (milliseconds: number) => new Date(clock.now().getTime() + milliseconds);
  return { clock, timers, woken, wakeups, at };
}

describe("waking the worker when what it let go of falls due", () => {
  it("arms one timer for the soonest, and wakes for every workspace then due", () => {
    const { clock, timers, woken, wakeups, at } = setUp();
    wakeups.add("wsp_late", at(5_000));
    expect(timers.live().map((entry) => entry.delay)).toEqual([5_000]);
    wakeups.add("wsp_a", at(1_000));
    wakeups.add("wsp_b", at(1_000));
    expect(timers.live().map((entry) => entry.delay)).toEqual([1_000]);
    clock.advance(1_000);
    timers.fire();
    expect(woken).toEqual([["wsp_a", "wsp_b"]]);
    expect(timers.live().map((entry) => entry.delay)).toEqual([4_000]);
    clock.advance(4_000);
    timers.fire();
    expect(woken).toEqual([["wsp_a", "wsp_b"], ["wsp_late"]]);
    expect(timers.live()).toEqual([]);
  });

  it("wakes for nothing when its timer fires early, and arms again for what is left", () => {
    const { clock, timers, woken, wakeups, at } = setUp();
    wakeups.add("wsp_a", at(1_000));
    clock.advance(999);
    timers.fire();
    expect(woken).toEqual([]);
    expect(timers.live().map((entry) => entry.delay)).toEqual([1]);
  });

  it("names a workspace once however many of its executions fall due together", () => {
    const { clock, timers, woken, wakeups, at } = setUp();
    wakeups.add("wsp_a", at(1_000));
    wakeups.add("wsp_a", at(1_000));
    wakeups.add("wsp_b", at(1_000));
    clock.advance(1_000);
    timers.fire();
    expect(woken).toEqual([["wsp_a", "wsp_b"]]);
  });

  it(`rounds moments up to a ${wakeupStepMs} ms step, so that those a few milliseconds apart share one claim`, () => {
    const { clock, timers, woken, wakeups, at } = setUp();
    wakeups.add("wsp_a", at(10));
    wakeups.add("wsp_b", at(wakeupStepMs - 5));
    wakeups.add("wsp_c", at(wakeupStepMs + 1));
    expect(timers.live().map((entry) => entry.delay)).toEqual([wakeupStepMs]);
    clock.advance(wakeupStepMs);
    timers.fire();
    expect(woken).toEqual([["wsp_a", "wsp_b"]]);
    expect(timers.live().map((entry) => entry.delay)).toEqual([wakeupStepMs]);
  });

  it("arms again for a sooner moment added while a later one is armed", () => {
    const { timers, wakeups, at } = setUp();
    wakeups.add("wsp_a", at(30 * 24 * 3_600_000));
    wakeups.add("wsp_b", at(1_000));
    expect(timers.live().map((entry) => entry.delay)).toEqual([1_000]);
  });

  it("ignores a moment that is not a time", () => {
    const { timers, wakeups } = setUp();
    wakeups.add("wsp_a", new Date(Number.NaN));
    expect(timers.live()).toEqual([]);
  });

  it("arms a moment already past at once", () => {
    const { timers, wakeups, at } = setUp();
    wakeups.add("wsp_a", at(-500));
    expect(timers.live().map((entry) => entry.delay)).toEqual([0]);
  });

  it("arms a far moment in hour-long steps, which Node's timers can hold", () => {
    const { clock, timers, woken, wakeups, at } = setUp();
    wakeups.add("wsp_a", at(30 * 24 * 3_600_000));
    expect(timers.live().map((entry) => entry.delay)).toEqual([3_600_000]);
    clock.advance(3_600_000);
    timers.fire();
    expect(woken).toEqual([]);
    expect(timers.live().map((entry) => entry.delay)).toEqual([3_600_000]);
  });

  it("keeps the soonest up to its capacity and leaves the rest to the poll", () => {
    const { clock, timers, woken, wakeups, at } = setUp(2);
    wakeups.add("wsp_c", at(3_000));
    wakeups.add("wsp_b", at(2_000));
    wakeups.add("wsp_a", at(1_000));
    wakeups.add("wsp_d", at(4_000));
    clock.advance(4_000);
    timers.fire();
    expect(woken).toEqual([["wsp_a", "wsp_b"]]);
    expect(timers.live()).toEqual([]);
  });

  it("fires nothing once stopped", () => {
    const { timers, woken, wakeups, at } = setUp();
    wakeups.add("wsp_a", at(1_000));
    wakeups.stop();
    expect(timers.live()).toEqual([]);
    wakeups.add("wsp_b", at(1_000));
    expect(timers.live()).toEqual([]);
    expect(woken).toEqual([]);
  });
});
