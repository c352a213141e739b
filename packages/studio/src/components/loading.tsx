import type { ReactNode } from "react";

export function Loading({ what }: { what: string }): ReactNode {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}
