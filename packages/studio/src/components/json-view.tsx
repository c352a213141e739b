import type { ReactNode } from "react";

/**
 * A JSON value, indented, in a block that scrolls rather than widening the page; focusable so that
 * a keyboard can scroll it too.
 */
export function JsonView({ value, label }: { value: unknown; label: string }): ReactNode {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls must be reachable by keyboard to be scrolled (WCAG 2.1.1).
    <section className="json" aria-label={label} tabIndex={0}>
      <pre>{value === undefined ? "—" : JSON.stringify(value, null, 2)}</pre>
    </section>
  );
}
