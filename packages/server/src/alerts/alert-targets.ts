import { isIP } from "node:net";
import { alertLabel, type Manifest } from "@weft/contract";
import { type EgressPolicy, nonPublicRangeOf } from "../engine/egress/address-policy.ts";

/** The port a webhook URL is posted to. */
export function portOf(url: URL): number {
  if (url.port !== "") return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

/**
 * Webhook alerts whose URL names an IP address the platform may not reach (private, loopback,
 * metadata…), refused at deploy. A host name is checked when each notice is sent, against every
 * address it resolves to then.
 */
export function alertTargetIssues(manifest: Manifest, policy: EgressPolicy): { path: string; message: string }[] {
  return manifest.alerts.flatMap((alert, index) => {
    if (!("webhook" in alert)) return [];
    const url = new URL(alert.webhook);
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    if (isIP(host) === 0) return [];
    const verdict = policy.check({ host, port: portOf(url), address: host });
    if (verdict.allowed) return [];
    return [
      {
        path: `alerts.${index}.webhook`,
        message: `${alertLabel(alert, index)}: ${host} is a ${nonPublicRangeOf(host) ?? "refused"} address; notices are posted to public addresses only`,
      },
    ];
  });
}
