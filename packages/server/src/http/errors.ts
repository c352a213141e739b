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

/**
 * The JSON body of a bearer credential's refusal (RFC 6750 §3): `{error, error_description}`, the
 * shape of every OAuth-style error of the platform, so an OAuth client reads it as it reads the
 * authorization server's.
 */
export function bearerError(c: Context, status: 401 | 403, error: string, description: string): Response {
  return c.json({ error, error_description: description }, status);
}
