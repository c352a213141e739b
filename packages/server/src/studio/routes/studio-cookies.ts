import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Config } from "../../config/config.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { basePathOf } from "../../shared/base-path.ts";

/** The browser's session; its path keeps it off `/rpc`, `/api`, the ingress paths and the auth pages. */
export const studioSessionCookie = "weft_studio_session";
/** A sign-in awaiting its code: the registration's claim token. */
export const studioSignInCookie = "weft_studio_sign_in";

export interface StudioCookies {
  read(c: Context<AppEnv>, name: string): string | undefined;
  /** Without `maxAgeSeconds`, a browser-session cookie: the server's idle rule decides when it ends. */
  write(c: Context<AppEnv>, name: string, value: string, maxAgeSeconds?: number): void;
  clear(c: Context<AppEnv>, name: string): void;
}

export function studioCookies(config: Pick<Config, "baseUrl">): StudioCookies {
  const options = {
    path: `${basePathOf(config.baseUrl)}/studio`,
    httpOnly: true,
    secure: config.baseUrl.startsWith("https:"),
    sameSite: "Lax",
  } as const;
  return {
    read: (c, name) => getCookie(c, name),
    write: (c, name, value, maxAgeSeconds) =>
      setCookie(c, name, value, maxAgeSeconds === undefined ? options : { ...options, maxAge: maxAgeSeconds }),
    clear: (c, name) => {
      deleteCookie(c, name, options);
    },
  };
}
