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
 * Every violation axe-core finds on the page as it is now of its WCAG 2 A/AA rules (2.0, 2.1 and
 * 2.2) and its best practices (landmarks, heading order), of any impact: a minor or moderate one
 * still makes the page harder to use for someone, and none is too costly to fix. axe's
 * source is handed to the browser's debugger protocol to evaluate, which a page's CSP does not
 * govern, rather than added as a <script> tag, which `script-src 'self'` would refuse.
 */
export async function accessibilityViolations(page: Page): Promise<AccessibilityViolation[]> {
  axeSource ??= readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  const source = await axeSource;
  if (!(await page.evaluate("typeof window.axe === 'object'"))) await page.evaluate(source);
  const results = (await page.evaluate(
    `window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] } })`,
  )) as AxeResults;
  return results.violations.map((violation) => ({
    id: violation.id,
    impact: violation.impact ?? "",
    help: violation.help,
    targets: violation.nodes.map((node) => node.target.map(String).join(" ")),
  }));
}
