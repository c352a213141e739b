import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable, retryWhileUnavailable } from "../src/db/database-unavailable.ts";
import { createManualTimers } from "../src/shared/timers.ts";

const restarting = () =>
  Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });
const failedQuery = (cause: Error) => new Error("Failed query: select 1", { cause });

/** Lets the retry loop reach its next wait, then fires it. */
async function fireNextWait(timers: ReturnType<typeof createManualTimers>): Promise<void> {
  while (timers.pending() === 0) await new Promise((resolve) => setImmediate(resolve));
  timers.fireAll();
}

describe("isDatabaseUnavailable", () => {
  it("names a lost or refused connection unavailable, through the causes drizzle wraps it in", () => {
    expect(isDatabaseUnavailable(failedQuery(restarting()))).toBe(true);
    expect(isDatabaseUnavailable(failedQuery(Object.assign(new Error("connect"), { code: "ECONNREFUSED" })))).toBe(
      true,
    );
    expect(isDatabaseUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
  });
  it("names a statement that failed, or anything else, not unavailable", () => {
    expect(isDatabaseUnavailable(failedQuery(Object.assign(new Error("duplicate key"), { code: "23505" })))).toBe(
      false,
    );
    expect(isDatabaseUnavailable("Connection terminated")).toBe(false);
  });
});

describe("retryWhileUnavailable", () => {
  it("runs the task again after each wait while the database cannot be reached, and returns its result", async () => {
    const timers = createManualTimers();
    let calls = 0;
    const result = retryWhileUnavailable(
      async () => {
        calls += 1;
        if (calls < 3) throw failedQuery(restarting());
        return "done";
      },
      timers,
      { attempts: 5, delayMs: 1000 },
    );
    await fireNextWait(timers);
    await fireNextWait(timers);
    expect(await result).toBe("done");
    expect(calls).toBe(3);
  });

  it("throws any other failure at once", async () => {
    const timers = createManualTimers();
    let calls = 0;
    const failure = failedQuery(Object.assign(new Error("syntax error"), { code: "42601" }));
    const result = retryWhileUnavailable(async () => {
      calls += 1;
      throw failure;
    }, timers);
    await expect(result).rejects.toBe(failure);
    expect(calls).toBe(1);
    expect(timers.pending()).toBe(0);
  });

  it("throws the last attempt's failure once its patience is spent", async () => {
    const timers = createManualTimers();
    let calls = 0;
    const result = retryWhileUnavailable(
      async () => {
        calls += 1;
        throw failedQuery(restarting());
      },
      timers,
      { attempts: 3, delayMs: 1000 },
    );
    const outcome = result.catch((error: unknown) => error);
    await fireNextWait(timers);
    await fireNextWait(timers);
    expect(isDatabaseUnavailable(await outcome)).toBe(true);
    expect(calls).toBe(3);
  });
});
