import { randomUUID } from "node:crypto";

const acceptableRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

/** A request's id: the caller's `X-Request-Id` when it is sane, else a new one. */
export function requestIdFor(offered: string | undefined): string {
  return offered !== undefined && acceptableRequestId.test(offered) ? offered : `req_${randomUUID()}`;
}
