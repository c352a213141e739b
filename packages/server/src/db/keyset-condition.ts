import { gt, gte, lt, lte, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { KeysetSlice } from "./keyset-page.ts";

const comparisons = { after: gt, before: lt, atOrBefore: lte, atOrAfter: gte } as const;

/** A slice's cursor condition with the cursor id bound as a value (for lists not kept as prepared statements). */
export function keysetCondition(idColumn: AnyPgColumn, slice: KeysetSlice): SQL | undefined {
  return slice.cursor === undefined ? undefined : comparisons[slice.cursor.comparison](idColumn, slice.cursor.id);
}
