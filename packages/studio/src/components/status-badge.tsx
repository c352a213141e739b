import type { ExecutionStatusValue } from "@weft/contract";
import type { ReactNode } from "react";

export function StatusBadge({ status }: { status: ExecutionStatusValue | string }): ReactNode {
  return <span className={`badge status-${status}`}>{status}</span>;
}
