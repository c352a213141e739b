import Bowser from "bowser";
import type { Context } from "hono";
import type { AppEnv } from "../../http/app-env.ts";
import { type ClientIpResolver, clientIpOf } from "../../http/client-ip.ts";

/** Who asked for a sign-in, as its approval mail shows them to the person whose address was typed. */
export interface SignInRequester {
  ip: string;
  /** A summary such as "Chrome 131 on Linux", built only from names the parser knows. */
  browser: string;
}

/** Longer headers are cut before parsing: no real browser sends more, and the parser's work stays bounded. */
const maxUserAgentLength = 512;

// The parser falls back to the header's own first word for a browser it does not know; only the
// names of its tables may reach the mail.
const knownBrowsers = new Set(Object.values(Bowser.BROWSER_MAP));
const knownSystems = new Set(Object.values(Bowser.OS_MAP));

/**
 * A User-Agent header summarised as browser, major version and system. The header is the
 * requester's to choose and the mail goes to someone else, so none of its free text is copied: an
 * unrecognised one reads "an unrecognised browser".
 */
export function summarizeUserAgent(header: string | undefined): string {
  const parsed = Bowser.parse((header ?? "").slice(0, maxUserAgentLength));
  const browser = parsed.browser.name ?? "";
  if (!knownBrowsers.has(browser)) return "an unrecognised browser";
  const major = /^\d{1,5}/.exec(parsed.browser.version ?? "")?.[0];
  const system = parsed.os.name ?? "";
  return `${browser}${major === undefined ? "" : ` ${major}`}${knownSystems.has(system) ? ` on ${system}` : ""}`;
}

export function signInRequesterOf(c: Context<AppEnv>, clientIps: ClientIpResolver): SignInRequester {
  return { ip: clientIpOf(c, clientIps), browser: summarizeUserAgent(c.req.header("user-agent")) };
}
