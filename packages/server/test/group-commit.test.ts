import { describe, expect, it } from "vitest";
import { createGroupCommit } from "../src/db/group-commit.ts";

/** A writer that records each batch it is given and answers when the test releases it. */
function recordingWriter(options: { failWhen?: (items: number[]) => boolean } = {}) {
  const batches: number[][] = [];
  const waiting: Array<() => void> = [];
  const write = async (items: number[]) => {
    batches.push(items);
    await new Promise<void>((resolve) => waiting.push(resolve));
    if (options.failWhen?.(items) === true) throw new Error(`refused ${items.join(",")}`);
    return items.map((item) => item * 10);
  };
  /** Waits until a write is under way, then lets it answer. */
  const release = async () => {
    while (waiting.length === 0) await new Promise((resolve) => setImmediate(resolve));
    waiting.shift()?.();
  };
  const started = async (count: number) => {
    while (batches.length < count) await new Promise((resolve) => setImmediate(resolve));
  };
  return { batches, write, release, started };
}

describe("group commit", () => {
  it("writes items submitted in one turn together, and those submitted during a write in the next one", async () => {
    const writer = recordingWriter();
    const submit = createGroupCommit(writer.write, { maxBatch: 10 });
    const first = [1, 2, 3].map(submit);
    await writer.started(1);
    const second = [4, 5].map(submit);
    // However long the first write takes, the second waits for it.
    for (let turn = 0; turn < 10; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(writer.batches).toEqual([[1, 2, 3]]);
    await writer.release();
    await writer.release();
    expect(await Promise.all([...first, ...second])).toEqual([10, 20, 30, 40, 50]);
    expect(writer.batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it("writes at most maxBatch items at once, and refuses a maxBatch below one", async () => {
    const writer = recordingWriter();
    const submit = createGroupCommit(writer.write, { maxBatch: 2 });
    const results = [1, 2, 3, 4, 5].map(submit);
    for (let batch = 0; batch < 3; batch += 1) await writer.release();
    expect(await Promise.all(results)).toEqual([10, 20, 30, 40, 50]);
    expect(writer.batches).toEqual([[1, 2], [3, 4], [5]]);
    expect(() => createGroupCommit(writer.write, { maxBatch: 0 })).toThrow(/maxBatch/);
  });

  it("writes each item of a failed batch alone, so that only the failing item is rejected, and goes on", async () => {
    const writer = recordingWriter({ failWhen: (items) => items.includes(2) });
    const submit = createGroupCommit(writer.write, { maxBatch: 10 });
    const results = [1, 2, 3].map((item) => submit(item).catch((error: Error) => error.message));
    for (let write = 0; write < 4; write += 1) await writer.release();
    expect(await Promise.all(results)).toEqual([10, "refused 2", 30]);
    expect(writer.batches).toEqual([[1, 2, 3], [1], [2], [3]]);
    const later = submit(4);
    await writer.release();
    expect(await later).toBe(40);
  });

  it("rejects a write that throws before it is under way like one that fails", async () => {
    const submit = createGroupCommit(
      (items: number[]) => {
        if (items.includes(2)) throw new Error("no");
        return Promise.resolve(items);
      },
      { maxBatch: 10 },
    );
    const results = [1, 2].map((item) => submit(item).catch((error: Error) => error.message));
    expect(await Promise.all(results)).toEqual([1, "no"]);
  });

  it("rejects, without writing them again, the items of a write that answers for fewer than it was given", async () => {
    let writes = 0;
    const submit = createGroupCommit(
      async (items: number[]) => {
        writes += 1;
        return items.slice(1);
      },
      { maxBatch: 10 },
    );
    const results = [1, 2].map((item) => submit(item).catch((error: Error) => error.message));
    expect(await Promise.all(results)).toEqual(["a write of 2 items answered 1", "a write of 2 items answered 1"]);
    expect(writes).toBe(1);
  });
});
