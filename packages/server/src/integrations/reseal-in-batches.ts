import type { Database, Transaction } from "../db/database.ts";

/** Rows re-sealed under the current key, and rows no key of the ring opens (left as they are). */
export interface ResealCounts {
  resealed: number;
  unopenable: number;
}

/** How a key rotation walks one table's rows sealed under another key than the current one. */
export interface ResealWalk<TRow, TKey> {
  /** The next stale rows after `after` in the walk's order (from the start without one), locked. */
  selectBatch(tx: Transaction, after: TKey | undefined): Promise<TRow[]>;
  /** Re-seals one row; false when no key of the ring opens it. */
  reseal(tx: Transaction, row: TRow): Promise<boolean>;
  /** The row's place in the walk's order. */
  keyOf(row: TRow): TKey;
  /** Called after each committed batch with the counts so far. */
  afterBatch?(counts: ResealCounts): Promise<void>;
}

/**
 * Re-seals a table's stale rows in batches of one transaction each, in a total order of their key.
 * A run that stops midway leaves whole rows done or untouched, so running it again resumes where
 * it stopped; a row no key opens is counted and left as it is.
 */
export async function resealInBatches<TRow, TKey>(db: Database, walk: ResealWalk<TRow, TKey>): Promise<ResealCounts> {
  const counts: ResealCounts = { resealed: 0, unopenable: 0 };
  let after: TKey | undefined;
  for (;;) {
    const batch = await db.transaction(async (tx) => {
      const rows = await walk.selectBatch(tx, after);
      let resealed = 0;
      for (const row of rows) {
        if (await walk.reseal(tx, row)) resealed += 1;
      }
      return { rows, resealed };
    });
    const last = batch.rows.at(-1);
    if (last === undefined) return counts;
    after = walk.keyOf(last);
    counts.resealed += batch.resealed;
    counts.unopenable += batch.rows.length - batch.resealed;
    await walk.afterBatch?.({ ...counts });
  }
}
