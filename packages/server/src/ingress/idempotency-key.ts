import type { Context } from "hono";
import type { AppEnv } from "../http/app-env.ts";

const idempotencyKeyPattern = /^[\x21-\x7e]{1,200}$/;

export type IdempotencyKeyHeader = { ok: true; key: string | undefined } | { ok: false; message: string };

/** The `Idempotency-Key` header of a webhook call or programmatic form submission, if it is well formed. */
export function readIdempotencyKey(c: Context<AppEnv>): IdempotencyKeyHeader {
  const key = c.req.header("idempotency-key");
  if (key !== undefined && !idempotencyKeyPattern.test(key)) {
    return { ok: false, message: "Idempotency-Key must be 1 to 200 visible ASCII characters." };
  }
  return { ok: true, key };
}
