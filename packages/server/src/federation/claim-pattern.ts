/**
 * Whether `value` matches `pattern`: the same string, or a glob whose `*` stands for any run of
 * characters (slashes and colons too, as in GitHub's `repo:org/app:ref:refs/heads/*`). Every other
 * character is literal.
 */
export function matchesClaimPattern(pattern: string, value: string): boolean {
  if (!pattern.includes("*")) return pattern === value;
  const parts = pattern.split("*");
  const first = parts[0] ?? "";
  const last = parts[parts.length - 1] ?? "";
  if (value.length < first.length + last.length || !value.startsWith(first) || !value.endsWith(last)) return false;
  let position = first.length;
  const end = value.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = value.indexOf(middle, position);
    if (found === -1 || found + middle.length > end) return false;
    position = found + middle.length;
  }
  return true;
}

/**
 * Whether a pattern has a literal part: wildcards alone match every token of the issuer, on a
 * shared issuer (GitHub Actions, GitLab CI) every repository's.
 */
export function hasLiteralPart(pattern: string): boolean {
  return /[^*]/.test(pattern);
}

/** A claim's value as a pattern compares it: strings as they are, numbers and booleans as JSON. */
export function claimText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}
