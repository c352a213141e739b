import type { ReactNode } from "react";

const format = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

/** An instant in the person's locale, with the exact ISO value in the markup. */
export function TimeText({ at }: { at: string | null }): ReactNode {
  if (at === null) return <span className="muted">—</span>;
  return <time dateTime={at}>{format.format(new Date(at))}</time>;
}

/** A duration in the unit that reads best. */
export function formatDuration(milliseconds: number): string {
  if (milliseconds < 1000) return `${Math.round(milliseconds)} ms`;
  if (milliseconds < 60_000) return `${(milliseconds / 1000).toFixed(milliseconds < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(milliseconds / 60_000);
  return `${minutes} min ${Math.round((milliseconds % 60_000) / 1000)} s`;
}
