/**
 * Group commit: items submitted while a write is under way wait for the next write, which takes
 * all of them (at most `maxBatch`) in one statement or transaction. Under load one commit, and its
 * flush to disk, serves many items; alone, an item is written at once, after the current turn of
 * the event loop so that items submitted in the same turn are written together.
 * `write` is all or nothing: when it throws, nothing of the batch was written. A batch that fails
 * is then written again one item at a time, so that one item cannot fail the others; an item that
 * fails alone is rejected with its error.
 */
export function createGroupCommit<Item, Result>(
  write: (items: Item[]) => Promise<Result[]>,
  options: { maxBatch: number },
): (item: Item) => Promise<Result> {
  if (!Number.isInteger(options.maxBatch) || options.maxBatch < 1)
    throw new RangeError(`maxBatch must be a positive integer, not ${options.maxBatch}`);
  interface Pending {
    item: Item;
    resolve: (result: Result) => void;
    reject: (error: unknown) => void;
  }
  let pending: Pending[] = [];
  let writing = false;

  async function writeBatch(batch: Pending[]): Promise<void> {
    let results: Result[];
    try {
      results = await write(batch.map((entry) => entry.item));
    } catch (error) {
      if (batch.length === 1) batch[0]?.reject(error);
      else for (const entry of batch) await writeBatch([entry]);
      return;
    }
    // Written, but unanswerable: writing it again could write it twice.
    if (results.length !== batch.length) {
      const error = new Error(`a write of ${batch.length} items answered ${results.length}`);
      for (const entry of batch) entry.reject(error);
      return;
    }
    for (const [index, result] of results.entries()) batch[index]?.resolve(result);
  }

  async function drain(): Promise<void> {
    try {
      while (pending.length > 0) {
        const batch = pending.slice(0, options.maxBatch);
        pending = pending.slice(options.maxBatch);
        await writeBatch(batch);
      }
    } finally {
      writing = false;
    }
  }

  return (item) =>
    new Promise<Result>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      if (writing) return;
      writing = true;
      setImmediate(() => void drain());
    });
}
