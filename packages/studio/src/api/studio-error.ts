import { isRpcError, requestIdOf } from "@weft/client";

/** A failed call as Studio shows it: what went wrong, and the request id to quote when reporting it. */
export interface StudioError {
  message: string;
  requestId: string | undefined;
  /** The session is gone: the person has to sign in again. */
  signedOut: boolean;
  /** A refusal (4xx): asking again gets the same answer, so it is not retried. */
  final: boolean;
}

export function describeError(error: unknown): StudioError {
  if (isRpcError(error)) {
    return {
      message: error.message,
      requestId: requestIdOf(error),
      signedOut: error.status === 401,
      // 408 and 429 are worth asking again, later.
      final: error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429,
    };
  }
  return {
    message: error instanceof Error ? error.message : "Something went wrong.",
    requestId: undefined,
    signedOut: false,
    final: false,
  };
}
