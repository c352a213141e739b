import { createClient, type WeftClient } from "@weft/client";
import { csrfHeader } from "./session-api.ts";

let csrfToken: string | undefined;

/** Remembers the session's CSRF token, which every call through `/studio/rpc` must carry. */
export function rememberCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** The API, reached through Studio's cookie-authenticated mount on this origin. */
export const weft: WeftClient = createClient({
  baseUrl: window.location.origin,
  rpcPath: "/studio/rpc",
  headers: (): Record<string, string> => (csrfToken === undefined ? {} : { [csrfHeader]: csrfToken }),
});
