import { alertLabel, type Manifest } from "@weft/contract";
import { nonPublicRangeOf } from "../engine/egress/address-policy.ts";
import type { GuardedFetch } from "../shared/guarded-fetch.ts";

/**
 * Webhook alerts whose URL names an IP address the platform may not reach (private, loopback,
 * metadata…), refused at deploy. A host name is checked when each notice is sent, against every
 * address it resolves to then.
 */
export function alertTargetIssues(
  manifest: Manifest,
  outbound: Pick<GuardedFetch, "addressRefusal">,
): { path: string; message: string }[] {
  return manifest.alerts.flatMap((alert, index) => {
    if (!("webhook" in alert)) return [];
    const url = new URL(alert.webhook);
    if (outbound.addressRefusal(url) === undefined) return [];
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    return [
      {
        path: `alerts.${index}.webhook`,
        message: `${alertLabel(alert, index)}: ${host} is a ${nonPublicRangeOf(host) ?? "refused"} address; notices are posted to public addresses only`,
      },
    ];
  });
}
