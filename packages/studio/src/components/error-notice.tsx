import type { ReactNode } from "react";
import { describeError } from "../api/studio-error.ts";

/**
 * A failed call: what went wrong and the request id to quote, read out by screen readers; nothing
 * while the call has not failed (`error` null, as TanStack Query gives it).
 */
export function ErrorNotice({ error }: { error: unknown }): ReactNode {
  if (error === null) return null;
  const { message, requestId } = describeError(error);
  return (
    <div className="notice error" role="alert">
      <p>{message}</p>
      {requestId === undefined ? null : (
        <p className="muted">
          Request id <code>{requestId}</code>
        </p>
      )}
    </div>
  );
}
