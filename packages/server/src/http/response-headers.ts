import type { Context } from "hono";
import type { AppEnv } from "./app-env.ts";

/**
 * Sets a header every response of this request carries. Served by node:http, it goes straight onto
 * Node's response, which merges it with the headers of whatever Response the route returns (the
 * route's own value wins); this spares building a Web Headers object after the fact, which cost
 * more than the rest of a small request. Without Node underneath (`app.request()`), it falls back
 * to Hono's `c.header`, applied once the route has answered.
 */
export function setResponseHeader(c: Context<AppEnv>, name: string, value: string): void {
  const outgoing = c.env?.outgoing;
  if (outgoing !== undefined) outgoing.setHeader(name, value);
  else c.header(name, value);
}

/**
 * User text (a form's title) made fit for a quoted header parameter such as a basic-auth realm:
 * header values are Latin-1 on the wire and Node throws on anything else, and a quote or a
 * backslash would end or bend the quoted string. Both are dropped, and every character outside
 * printable ASCII becomes `?`.
 */
export function headerParameterText(text: string): string {
  return text.replace(/["\\]/g, "").replace(/[^\x20-\x7e]/g, "?");
}
