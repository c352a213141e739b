import type { HtmlEscapedString } from "hono/utils/html";

/**
 * The string of an `html` template whose values are all synchronous. hono's `html` returns a
 * promise only when a value is one; templates here never interpolate promises.
 */
export function renderHtml(template: HtmlEscapedString | Promise<HtmlEscapedString>): string {
  if (template instanceof Promise) throw new Error("an html template interpolated a promise");
  return template.toString();
}
