import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { renderHtml } from "../http/render-html.ts";

/** A mail's HTML part: its content in the one plain layout every mail of the platform has. */
export function mailHtml(content: HtmlEscapedString | Promise<HtmlEscapedString>): string {
  return renderHtml(html`<!doctype html>
<html lang="en">
  <body style="font-family: system-ui, sans-serif; color: #111">
    ${content}
  </body>
</html>`);
}
