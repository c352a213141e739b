import { sqlStateOf } from "./sql-state.ts";

/** Whether a database error (possibly wrapped by Drizzle) is a unique-constraint violation (SQLSTATE 23505). */
export function isUniqueViolation(error: unknown): boolean {
  return sqlStateOf(error) === "23505";
}
