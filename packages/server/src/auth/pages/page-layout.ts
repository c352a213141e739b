import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { renderHtml } from "../../http/render-html.ts";

type Content = HtmlEscapedString | Promise<HtmlEscapedString>;

/** The frame of every authorization-server page: plain, readable, high contrast, no script. */
export function page(title: string, content: Content): string {
  return renderHtml(html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>${title} — Weft</title>
    <style>
      body { font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; color: #111; background: #fff; line-height: 1.5; }
      button { font: inherit; padding: 0.5rem 1.25rem; margin-right: 0.5rem; border-radius: 0.25rem; border: 2px solid #111; cursor: pointer; }
      button:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
      .primary { background: #14532d; color: #fff; border-color: #14532d; }
      .secondary { background: #fff; color: #111; }
      .code { font-size: 2.5rem; font-family: ui-monospace, monospace; letter-spacing: 0.3em; }
      dt { font-weight: bold; }
    </style>
  </head>
  <body>
    <main>${content}</main>
  </body>
</html>`);
}
