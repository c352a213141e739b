import * as z from "zod";

/** First and last instants accepted in filters and cursors: years 1 to 9999, in UTC. */
export const earliestInstant = new Date("0001-01-01T00:00:00.000Z").getTime();
export const latestInstant = new Date("9999-12-31T23:59:59.999Z").getTime();

/**
 * Whether an instant lies where JavaScript's Date, ISO 8601's four-digit years and PostgreSQL's
 * `timestamptz` all agree: PostgreSQL has no year 0 and refuses Date's signed six-digit years, so
 * such an instant would otherwise turn a query into a database error.
 */
export function isSupportedInstant(time: Date): boolean {
  const milliseconds = time.getTime();
  return milliseconds >= earliestInstant && milliseconds <= latestInstant;
}

/** An ISO 8601 date-time in UTC (`2026-11-23T10:00:00Z`), between the years 1 and 9999. */
export const instantInputSchema = z.iso
  .datetime()
  .refine((text) => isSupportedInstant(new Date(text)), "Expected an instant between the years 0001 and 9999.");
