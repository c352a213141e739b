import { claimCodeOf, decide } from "./auth-client.ts";
import type { SmtpSink } from "./smtp-sink.ts";

/** A browser's Studio session, as a test holds it: the `Cookie` header to send and the CSRF token. */
export interface StudioBrowserSession {
  cookie: string;
  csrfToken: string;
  email: string;
}

/** The `name=value` pairs of a response's `Set-Cookie` headers, as a browser would send them back. */
export function cookiesOf(response: Response): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const header of response.headers.getSetCookie()) {
    const [pair = ""] = header.split(";");
    const at = pair.indexOf("=");
    cookies.set(pair.slice(0, at), pair.slice(at + 1));
  }
  return cookies;
}

/** The whole `Set-Cookie` header that sets `name`, attributes included. */
export function setCookieHeader(response: Response, name: string): string | undefined {
  return response.headers.getSetCookie().find((header) => header.startsWith(`${name}=`));
}

/**
 * Signs in to Studio at `url` by mail, over HTTP as the app does it: asks for the mail, follows the
 * approval link from the SMTP sink, approves, reads the code off the approval page and completes.
 */
export async function signInToStudio(url: string, smtp: SmtpSink, email: string): Promise<StudioBrowserSession> {
  const started = await fetch(`${url}/studio/api/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email }),
  });
  if (started.status !== 202) throw new Error(`Studio sign-in answered ${started.status}`);
  const pending = cookiesOf(started).get("weft_studio_sign_in");
  if (pending === undefined) throw new Error("Studio sign-in set no pending cookie");
  const approved = await decide(smtp.approvalLinkFor(email), "approve");
  const completed = await fetch(`${url}/studio/api/sign-in/complete`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: `weft_studio_sign_in=${pending}` },
    body: JSON.stringify({ code: claimCodeOf(approved.html) }),
  });
  if (completed.status !== 200) throw new Error(`Studio sign-in completion answered ${completed.status}`);
  const session = cookiesOf(completed).get("weft_studio_session");
  if (session === undefined) throw new Error("Studio sign-in set no session cookie");
  const body = (await completed.json()) as { csrfToken: string };
  return { cookie: `weft_studio_session=${session}`, csrfToken: body.csrfToken, email };
}
