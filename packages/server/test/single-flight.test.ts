import { describe, expect, it } from "vitest";
import { singleFlight } from "../src/shared/single-flight.ts";

function deferredReads() {
  const started: { key: string; resolve: (value: string) => void; reject: (error: Error) => void }[] = [];
  const read = (key: string) =>
    new Promise<string>((resolve, reject) => {
      started.push({ key, resolve, reject });
    });
  return { started, read };
}

describe("singleFlight", () => {
  it("shares a read under way among the calls for its key, and not with other keys", async () => {
    const { started, read } = deferredReads();
    const shared = singleFlight(read);
    const first = shared("a");
    const second = shared("a");
    const other = shared("b");
    expect(started.map((entry) => entry.key)).toEqual(["a", "b"]);
    started[0]?.resolve("A");
    started[1]?.resolve("B");
    expect(await Promise.all([first, second, other])).toEqual(["A", "A", "B"]);
  });

  it("reads again once the read settled, whether it answered or failed", async () => {
    const { started, read } = deferredReads();
    const shared = singleFlight(read);
    const failed = shared("a");
    started[0]?.reject(new Error("unreachable"));
    await expect(failed).rejects.toThrow("unreachable");
    const again = shared("a");
    expect(started).toHaveLength(2);
    started[1]?.resolve("A");
    expect(await again).toBe("A");
    const third = shared("a");
    expect(started).toHaveLength(3);
    started[2]?.resolve("A2");
    expect(await third).toBe("A2");
  });
});
