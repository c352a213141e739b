import { RE2JS } from "re2js";

/**
 * Compiles a JSON Schema `pattern` for RE2, whose matching time is linear in the input. JavaScript's
 * own engine backtracks: `^(a+)+$` against 30 characters held the event loop for seconds. RE2 has
 * no backreferences or lookarounds, so such patterns are refused at deploy instead. Throws the
 * engine's syntax error when the pattern cannot be taken.
 */
export function compileLinearPattern(pattern: string): { test(text: string): boolean; toString(): string } {
  const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
  // Ajv shares compiled patterns by their string form: it must differ for every pattern.
  return { test: (text) => compiled.test(text), toString: () => `re2:${pattern}` };
}

/** Why RE2 cannot run a pattern, or undefined when it can. */
export function linearPatternProblem(pattern: string): string | undefined {
  try {
    compileLinearPattern(pattern);
    return undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `${JSON.stringify(pattern)} cannot be matched in linear time (backreferences, lookarounds and repeats over 1000 are not supported): ${reason}`;
  }
}
