/** What a secret value becomes in stored logs and error messages. */
export const redactedMark = "[redacted]";

/** Shorter values are not scrubbed: replacing every "ab" of a log would garble it and hide nothing. */
export const minScrubbedLength = 4;

export type Scrub = (text: string) => string;

/**
 * Replaces every occurrence of the values (longest first, so a value that contains another is
 * replaced whole) with `[redacted]`.
 */
export function secretScrubber(values: Iterable<string>): Scrub {
  const scrubbed = [...new Set(values)]
    .filter((value) => value.length >= minScrubbedLength)
    .sort((a, b) => b.length - a.length);
  if (scrubbed.length === 0) return (text) => text;
  return (text) => scrubbed.reduce((result, value) => result.replaceAll(value, redactedMark), text);
}

/** Every string of a JSON value (keys too) scrubbed. */
export function scrubJson(value: unknown, scrub: Scrub): unknown {
  if (typeof value === "string") return scrub(value);
  if (Array.isArray(value)) return value.map((item) => scrubJson(item, scrub));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [scrub(key), scrubJson(item, scrub)]));
  }
  return value;
}
