/** A duration: milliseconds, or a string such as "500ms", "3s", "5m", "1h", "2d". */
export type Duration = number | `${number}${"ms" | "s" | "m" | "h" | "d"}`;

const unitMs = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Converts a Duration to whole milliseconds; throws a RangeError naming the bad value. */
export function durationToMs(duration: Duration): number {
  if (typeof duration === "number") {
    if (!Number.isFinite(duration) || duration < 0) {
      throw new RangeError(`${duration} is not a duration: expected milliseconds ≥ 0 or a string like "3s"`);
    }
    return Math.round(duration);
  }
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(duration);
  if (match === null) {
    throw new RangeError(
      `"${duration}" is not a duration: expected a number and a unit, like "500ms", "3s", "5m", "1h" or "2d"`,
    );
  }
  return Math.round(Number(match[1]) * unitMs[match[2] as keyof typeof unitMs]);
}
