import { createStudioClient, type StudioClient } from "@weft/client";
import { studioCsrfHeader } from "@weft/contract";

let csrfToken: string | undefined;

/** Remembers the session's CSRF token, which sign-out and every call through `/studio/rpc` must carry. */
export function rememberCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** The API and the session routes, reached on this origin with the session cookie. */
export const weft: StudioClient = createStudioClient({
  baseUrl: window.location.origin,
  headers: (): Record<string, string> => (csrfToken === undefined ? {} : { [studioCsrfHeader]: csrfToken }),
});
