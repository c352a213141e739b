import { isRpcError, requestIdOf } from "@weft/client";

/** A failed call as Studio shows it: what went wrong, and the request id to quote when reporting it. */
export interface StudioError {
  message: string;
  requestId: string | undefined;
  /** The session is gone: the person has to sign in again. */
  signedOut: boolean;
}

/** Thrown by the session endpoints (`/studio/api/*`), which answer plain JSON rather than RPC. */
export class SessionApiError extends Error {
  readonly status: number;
  readonly requestId: string | undefined;
  constructor(message: string, status: number, requestId: string | undefined) {
    super(message);
    this.name = "SessionApiError";
    this.status = status;
    this.requestId = requestId;
  }
}

export function describeError(error: unknown): StudioError {
  if (error instanceof SessionApiError) {
    return { message: error.message, requestId: error.requestId, signedOut: error.status === 401 };
  }
  if (isRpcError(error)) {
    return { message: error.message, requestId: requestIdOf(error), signedOut: error.status === 401 };
  }
  return {
    message: error instanceof Error ? error.message : "Something went wrong.",
    requestId: undefined,
    signedOut: false,
  };
}
