import { type GuardedFetch, OutboundError } from "../shared/guarded-fetch.ts";
import { noticeSignature } from "./notice-signature.ts";

/** How long a receiver has to answer; a slow one is tried again later rather than holding the dispatcher. */
const postDeadlineMs = 10_000;

export type PostOutcome = { ok: true } | { ok: false; error: string; permanent: boolean };

export interface NoticePost {
  url: string;
  body: string;
  secret: string;
  deliveryId: string;
  now: Date;
}

/**
 * POSTs a notice, signed, to a webhook URL through `outbound` (the address policy, checked on the
 * very address connected to; no redirects; only the status is read). A 2xx answer delivers it; an
 * address the policy refuses is a permanent failure, anything else may succeed on a later try.
 */
export async function postNotice(post: NoticePost, outbound: GuardedFetch): Promise<PostOutcome> {
  try {
    const response = await outbound.request(new URL(post.url), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "Weft-Alerts/1",
        "x-weft-delivery": post.deliveryId,
        "x-weft-signature": noticeSignature(post.secret, Math.floor(post.now.getTime() / 1000), post.body),
      },
      body: post.body,
      maxBodyBytes: 0,
      deadlineMs: postDeadlineMs,
    });
    const { status } = response;
    return status >= 200 && status < 300 ? { ok: true } : { ok: false, error: `answered ${status}`, permanent: false };
  } catch (error) {
    if (error instanceof OutboundError) return { ok: false, error: error.message, permanent: error.refused };
    throw error;
  }
}
