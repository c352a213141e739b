import { createHmac } from "node:crypto";

/**
 * `X-Weft-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`: the timestamp
 * is signed with the body, so a receiver that also bounds the age of `t` refuses a replayed notice.
 */
export function noticeSignature(secret: string, unixSeconds: number, body: string): string {
  const digest = createHmac("sha256", secret).update(`${unixSeconds}.${body}`, "utf8").digest("hex");
  return `t=${unixSeconds},v1=${digest}`;
}
