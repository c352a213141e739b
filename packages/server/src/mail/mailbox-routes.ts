import { Hono } from "hono";
import { html } from "hono/html";
import type { AppEnv } from "../http/app-env.ts";
import type { OutboxMessage } from "./mailer.ts";

/**
 * `GET /dev/mailbox`: the dev outbox, mounted only when no SMTP server is configured. HTML for a
 * browser; JSON (`Accept: application/json`) for scripts and agents.
 */
export function mailboxRoutes(outbox: { list(): readonly OutboxMessage[] }): Hono<AppEnv> {
  return new Hono<AppEnv>().get("/dev/mailbox", (c) => {
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
    <p>Mail is not sent while no <code>SMTP_URL</code> is set; it is kept here instead (newest first).</p>
    ${
      messages.length === 0
        ? html`<p>No mail yet.</p>`
        : messages.map(
            (message) => html`<article>
      <h2>${message.subject}</h2>
      <p>To ${message.to}, ${message.sentAt.toISOString()}</p>
      <pre style="white-space: pre-wrap">${message.text}</pre>
    </article>`,
          )
    }
  </body>
</html>`);
  });
}
