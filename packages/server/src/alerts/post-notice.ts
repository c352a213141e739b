import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { EgressPolicy } from "../engine/egress/address-policy.ts";
import { checkedLookup, EgressRefusedError, literalAddressRefusal } from "../engine/egress/checked-lookup.ts";
import type { ResolveHost } from "../engine/egress/egress-proxy.ts";
import { portOf } from "./alert-targets.ts";
import { noticeSignature } from "./notice-signature.ts";

/** How long a receiver has to answer; a slow one is tried again later rather than holding the dispatcher. */
const postTimeoutMs = 10_000;

export type PostOutcome = { ok: true } | { ok: false; error: string; permanent: boolean };

export interface NoticePost {
  url: string;
  body: string;
  secret: string;
  deliveryId: string;
  now: Date;
}

/**
 * POSTs a notice, signed, to a webhook URL: only to addresses the egress policy allows (checked on
 * the very address connected to), no redirects followed. A 2xx answer delivers it; an address the
 * policy refuses is a permanent failure, anything else may succeed on a later try.
 */
export function postNotice(
  post: NoticePost,
  deps: { resolveHost: ResolveHost; policy: EgressPolicy },
): Promise<PostOutcome> {
  const url = new URL(post.url);
  const port = portOf(url);
  const refusal = literalAddressRefusal(url, deps.policy, port);
  if (refusal !== undefined) return Promise.resolve({ ok: false, error: refusal, permanent: true });
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const request = send(
      url,
      {
        method: "POST",
        lookup: checkedLookup(deps.resolveHost, deps.policy, port),
        timeout: postTimeoutMs,
        headers: {
          "content-type": "application/json",
          "user-agent": "Weft-Alerts/1",
          "x-weft-delivery": post.deliveryId,
          "x-weft-signature": noticeSignature(post.secret, Math.floor(post.now.getTime() / 1000), post.body),
        },
      },
      (response) => {
        response.resume();
        const status = response.statusCode ?? 0;
        resolve(
          status >= 200 && status < 300 ? { ok: true } : { ok: false, error: `answered ${status}`, permanent: false },
        );
      },
    );
    request.on("timeout", () => request.destroy(new Error(`no answer within ${postTimeoutMs / 1000} s`)));
    request.on("error", (error) =>
      resolve({ ok: false, error: error.message, permanent: error instanceof EgressRefusedError }),
    );
    request.end(post.body);
  });
}
