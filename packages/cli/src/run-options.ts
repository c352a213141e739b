/** Commander's collector for a repeatable `--tag`. */
export function collectTag(tag: string, tags: string[]): string[] {
  return [...tags, tag];
}

/** A `--delay` or `--ttl`: whole milliseconds as a number, anything else as the duration text the API checks. */
export function durationOption(text: string): number | string {
  return /^\d+$/.test(text) ? Number(text) : text;
}
