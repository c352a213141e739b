import type { ExecutionStatusValue } from "@weft/contract";
import type { ReactNode } from "react";

/**
 * How a status reads where it is chosen: `expired` alone would pass for a run that ran out of time
 * while running, but it never started, so the filter says so.
 */
export function statusChoiceLabel(status: ExecutionStatusValue): string {
  return status === "expired" ? "expired (never started)" : status;
}

export function StatusBadge({ status }: { status: ExecutionStatusValue | string }): ReactNode {
  return (
    <span className={`badge status-${status}`}>
      {status}
      {status === "expired" ? <span className="visually-hidden"> (never started)</span> : null}
    </span>
  );
}
