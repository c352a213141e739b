import { type AnyPgColumn, text, timestamp } from "drizzle-orm/pg-core";

/** An instant, stored with its time zone and read as a Date. */
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/** The row a row belongs to: a required reference, deleted with it. */
export function ownedBy(name: string, parent: () => AnyPgColumn) {
  return text(name).notNull().references(parent, { onDelete: "cascade" });
}
