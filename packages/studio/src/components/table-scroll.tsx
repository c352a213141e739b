import type { ReactNode } from "react";

/**
 * A table that scrolls sideways on a narrow screen rather than widening the page; focusable so that
 * a keyboard can scroll it too.
 */
export function TableScroll({ label, children }: { label: string; children: ReactNode }): ReactNode {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls must be reachable by keyboard to be scrolled (WCAG 2.1.1).
    <section className="table-scroll" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
