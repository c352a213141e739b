import type { Context } from "hono";

/** The JSON body of platform-level HTTP errors (unknown path, body too large, unexpected failure). */
export function jsonError(
  c: Context,
  status: 400 | 401 | 403 | 404 | 413 | 429 | 500 | 503,
  error: string,
  message: string,
): Response {
  return c.json({ error, message }, status);
}
