import { Cron } from "croner";

/**
 * Cron timing of schedules, through croner (no hand-written parser). Expressions have the standard
 * five fields, minute to day of week. Across DST changes croner follows Vixie cron: a fixed-time
 * job (one value in minute and hour) whose time is skipped runs at the first valid time after the
 * gap, and one whose time occurs twice runs once, at the first occurrence; an interval job (`*`, a
 * step, a range or a list) skips times in the gap and runs at both occurrences of a repeated time.
 */

function cronOf(cron: string, timezone: string): Cron {
  return new Cron(cron, { mode: "5-part", timezone, paused: true });
}

/** Why a cron expression cannot be used, or undefined when it can. */
export function cronProblem(cron: string): string | undefined {
  try {
    cronOf(cron, "UTC");
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.replace(/^CronPattern: /, "") : String(error);
  }
}

/** Whether the runtime knows `timezone` as an IANA zone name (`Europe/Berlin`, `UTC`). */
export function isKnownTimezone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** The first tick strictly after `after`, or null when the expression never matches again. */
export function nextTick(cron: string, timezone: string, after: Date): Date | null {
  return cronOf(cron, timezone).nextRun(after);
}

/** The last tick at or before `atOrBefore`, or null when there was none. */
export function latestTick(cron: string, timezone: string, atOrBefore: Date): Date | null {
  // previousRuns looks strictly before its reference.
  const [latest] = cronOf(cron, timezone).previousRuns(1, new Date(atOrBefore.getTime() + 1));
  return latest ?? null;
}
