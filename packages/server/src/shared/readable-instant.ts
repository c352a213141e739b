const relative = new Intl.RelativeTimeFormat("en", { numeric: "always" });
const clockTime = new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", timeZone: "UTC" });
const dayAndTime = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  hour: "2-digit",
  minute: "2-digit",
  timeZone: "UTC",
});

const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
];

/**
 * An instant as a person reads it on a page: "in 10 minutes (09:24 UTC)", or with the day when it
 * is not today's ("in 2 days (25 Nov, 09:24 UTC)"). Pages render on the server, which does not
 * know the reader's zone, so the clock time says UTC.
 */
export function readableInstant(instant: Date, now: Date): string {
  const deltaMs = instant.getTime() - now.getTime();
  const [unit, size] = units.find(([, ms]) => Math.abs(deltaMs) >= ms) ?? ["second", 1000];
  const amount = Math.round(deltaMs / size);
  const sameDay = instant.toISOString().slice(0, 10) === now.toISOString().slice(0, 10);
  const at = (sameDay ? clockTime : dayAndTime).format(instant);
  return `${relative.format(amount, unit)} (${at} UTC)`;
}
