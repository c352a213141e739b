import type { ReactNode } from "react";
import { describeError } from "../api/studio-error.ts";

/** A failed call: what went wrong and the request id to quote, read out by screen readers. */
export function ErrorNotice({ error }: { error: unknown }): ReactNode {
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
