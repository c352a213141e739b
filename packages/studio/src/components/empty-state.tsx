import type { ReactNode } from "react";

/** Nothing to show yet, and what to do about it. */
export function EmptyState({ children }: { children: ReactNode }): ReactNode {
  return <div className="empty-state">{children}</div>;
}
