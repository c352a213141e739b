/** The UTC month an instant falls in: where monthly quotas start, and where they reset. */
export function monthOf(instant: Date): { start: Date; end: Date; day: string } {
  const start = new Date(Date.UTC(instant.getUTCFullYear(), instant.getUTCMonth(), 1));
  const end = new Date(Date.UTC(instant.getUTCFullYear(), instant.getUTCMonth() + 1, 1));
  return { start, end, day: utcDayOf(start) };
}

/** `YYYY-MM-DD` of an instant's UTC day. */
export function utcDayOf(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}
