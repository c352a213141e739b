import { Hono } from "hono";
import { html } from "hono/html";
import type { AppEnv } from "../http/app-env.ts";
import { jsonError } from "../http/errors.ts";
import { basePathOf, resourceRootsOf } from "../shared/base-path.ts";
import { isLoopbackAddress } from "../shared/loopback.ts";
import { secretsEqual } from "../shared/secrets.ts";
import type { Outbox } from "./mailer.ts";

/** Header that carries the mailbox key for scripts, instead of `?key=`. */
export const mailboxKeyHeader = "x-weft-mailbox-key";

/** The web addresses of a mail's text as links, so that an approval link opens with one click. */
function withLinks(text: string) {
  return text.split(/(https?:\/\/[^\s<>"]+)/).map((part, index) =>
    // split() with a capture group puts the addresses at the odd indexes.
    index % 2 === 1 ? html`<a href="${part}">${part}</a>` : part,
  );
}

/**
 * `GET /dev/mailbox?key=…`: the dev outbox, mounted only when no SMTP server is configured. Like the
 * resource server's paths, it answers under the path of `{base_url}`, where the start-up link points,
 * and at the root (`resourceRootsOf`). HTML for
 * a browser; JSON (`Accept: application/json`) for scripts and agents. Its mail holds approval
 * links, which claim credentials for the addressee: so it answers only clients on this machine
 * (the socket's peer, never `X-Forwarded-For`, which a client writes itself) that present its key.
 */
export function mailboxRoutes(outbox: Outbox, baseUrl: string): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const self = `${basePathOf(baseUrl)}/dev/mailbox?key=${encodeURIComponent(outbox.key)}`;
  for (const root of resourceRootsOf(baseUrl))
    routes.get(`${root}/dev/mailbox`, (c) => {
      const peer = c.env?.incoming?.socket.remoteAddress;
      if (peer === undefined || !isLoopbackAddress(peer)) {
        return jsonError(c, 404, "not_found", `No route for ${c.req.method} ${c.req.path}.`);
      }
      const presented = c.req.query("key") ?? c.req.header(mailboxKeyHeader) ?? "";
      if (!secretsEqual(presented, outbox.key)) {
        return jsonError(
          c,
          401,
          "mailbox_key_required",
          "The dev mailbox needs its key: open its link (…/dev/mailbox?key=…), printed at start-up to a terminal and otherwise kept in dev-mailbox.link in the data directory, or send the key of dev-mailbox.key there as ?key= or the X-Weft-Mailbox-Key header.",
        );
      }
      c.header("Cache-Control", "no-store");
      const messages = outbox.list();
      if ((c.req.header("accept") ?? "").includes("application/json")) {
        return c.json({
          messages: messages.map((message) => ({
            from: message.from,
            to: message.to,
            subject: message.subject,
            text: message.text,
            sent_at: message.sentAt.toISOString(),
          })),
        });
      }
      return c.html(html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Dev mailbox — Weft</title>
  </head>
  <body style="font-family: system-ui, sans-serif; max-width: 48rem; margin: 2rem auto; padding: 0 1rem; color: #111">
    <h1>Dev mailbox</h1>
    <p>Mail is not sent while no <code>SMTP_URL</code> is set; it is kept here instead (newest first). <a href="${self}">Refresh</a></p>
    ${
      messages.length === 0
        ? html`<p>No mail yet.</p>`
        : messages.map(
            (message) => html`<article>
      <h2>${message.subject}</h2>
      <p>To ${message.to}, ${message.sentAt.toISOString()}</p>
      <pre style="white-space: pre-wrap">${withLinks(message.text)}</pre>
    </article>`,
          )
    }
  </body>
</html>`);
    });
  return routes;
}
