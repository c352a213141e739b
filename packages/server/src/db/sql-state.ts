/**
 * The SQLSTATE of a database error, possibly wrapped by Drizzle, or `undefined`. The error itself
 * is not for logs: Drizzle's message quotes the statement's parameters, which hold user data.
 */
export function sqlStateOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth += 1) {
    if ("code" in current && typeof current.code === "string") return current.code;
    current = "cause" in current ? current.cause : undefined;
  }
  return undefined;
}
