/**
 * Whether a decoded JSON value can be stored and processed safely: nested no deeper than a bound,
 * and with no string (value or key) that PostgreSQL's `jsonb` and `text` refuse. PostgreSQL rejects
 * `\u0000` in both, and a lone UTF-16 surrogate has no UTF-8 form, so either would otherwise surface
 * as a database error long after the request was accepted.
 */

/** Nesting allowed in request bodies and stored values; deeper input is refused before it is walked further. */
export const maxJsonDepth = 64;

export type UnstorableProblem = "too_deep" | "nul_character" | "lone_surrogate";

export type StorableCheck = { ok: true } | { ok: false; problem: UnstorableProblem; path: (string | number)[] };

/** Problem of one string, or `undefined` when PostgreSQL can store it. */
export function unstorableStringProblem(text: string): UnstorableProblem | undefined {
  if (text.includes("\u0000")) return "nul_character";
  if (!text.isWellFormed()) return "lone_surrogate";
  return undefined;
}

/**
 * Walks `value` without recursion (a hostile body may be thousands of levels deep) and reports the
 * first problem with the path that leads to it. The top level counts as depth 1.
 */
export function checkStorableJson(value: unknown, maxDepth: number = maxJsonDepth): StorableCheck {
  const pending: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value: current, path } = next;
    if (typeof current === "string") {
      const problem = unstorableStringProblem(current);
      if (problem !== undefined) return { ok: false, problem, path };
      continue;
    }
    if (typeof current !== "object" || current === null) continue;
    if (path.length >= maxDepth) return { ok: false, problem: "too_deep", path };
    if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index -= 1) {
        pending.push({ value: current[index], path: [...path, index] });
      }
      continue;
    }
    for (const [key, child] of Object.entries(current)) {
      const problem = unstorableStringProblem(key);
      if (problem !== undefined) return { ok: false, problem, path: [...path, key] };
      pending.push({ value: child, path: [...path, key] });
    }
  }
  return { ok: true };
}

/** `items[3].name`, for error messages that name the field; the root is `(root)`. */
export function formatJsonPath(path: readonly (string | number)[]): string {
  if (path.length === 0) return "(root)";
  return path
    .map((segment, index) => {
      if (typeof segment === "number") return `[${segment}]`;
      const plain = /^[A-Za-z_$][\w$]*$/.test(segment);
      if (!plain) return `[${JSON.stringify(segment)}]`;
      return index === 0 ? segment : `.${segment}`;
    })
    .join("");
}

/** One sentence naming the field and the problem, for 400 bodies and failed steps. */
export function describeUnstorable(check: Extract<StorableCheck, { ok: false }>, maxDepth = maxJsonDepth): string {
  const field = formatJsonPath(check.path);
  switch (check.problem) {
    case "too_deep":
      return `${field} is nested more than ${maxDepth} levels deep`;
    case "nul_character":
      return `${field} contains a NUL character (\\u0000), which cannot be stored`;
    case "lone_surrogate":
      return `${field} contains a lone UTF-16 surrogate, which is not valid Unicode text`;
  }
}

export type StorableJsonText = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * Parses a JSON request body and checks that it can be stored: what every public endpoint does
 * with the JSON it reads, so that nothing PostgreSQL refuses gets past the edge.
 */
export function parseStorableJson(text: string): StorableJsonText {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: "The body is not valid JSON." };
  }
  const check = checkStorableJson(value);
  return check.ok
    ? { ok: true, value }
    : { ok: false, message: `The body cannot be accepted: ${describeUnstorable(check)}.` };
}
