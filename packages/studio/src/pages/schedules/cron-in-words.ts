import cronstrue from "cronstrue";

/**
 * A 5-field cron expression in words, with its time zone: "At 09:00, Monday through Friday
 * (Europe/Paris)". The expression itself is shown beside it, so one cronstrue cannot word
 * still reads as what it is.
 */
export function cronInWords(cron: string, timezone: string): string {
  try {
    return `${cronstrue.toString(cron, { use24HourTimeFormat: true, throwExceptionOnParseError: true })} (${timezone})`;
  } catch {
    return `${cron} (${timezone})`;
  }
}
