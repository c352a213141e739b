import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

export interface AccessibilityViolation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

interface AxeResults {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
}

let axeSource: Promise<string> | undefined;

/**
 * The serious and critical WCAG 2 A/AA violations axe-core finds on the page as it is now. axe's
 * source is handed to the browser's debugger protocol to evaluate, which a page's CSP does not
 * govern, rather than added as a <script> tag, which `script-src 'self'` would refuse.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<AccessibilityViolation[]> {
  axeSource ??= readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  const source = await axeSource;
  if (!(await page.evaluate("typeof window.axe === 'object'"))) await page.evaluate(source);
  const results = (await page.evaluate(
    `window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } })`,
  )) as AxeResults;
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => ({
      id: violation.id,
      impact: violation.impact ?? "",
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.map(String).join(" ")),
    }));
}
