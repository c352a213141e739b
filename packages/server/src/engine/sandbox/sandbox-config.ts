import type { EgressAllowEntry } from "../egress/address-policy.ts";
import type { SandboxEgressLimits } from "../egress/egress-limits.ts";

export const sandboxModes = ["auto", "bwrap", "process"] as const;
export const sandboxEgressModes = ["public", "all"] as const;
export const sandboxCgroupModes = ["auto", "on", "off"] as const;

export type SandboxCgroupsMode = (typeof sandboxCgroupModes)[number];

/** How workflow code is isolated and bounded (WEFT_SANDBOX, WEFT_SANDBOX_EGRESS, WEFT_SANDBOX_EGRESS_ALLOW, WEFT_SANDBOX_CGROUPS). */
export interface SandboxConfig {
  mode: (typeof sandboxModes)[number];
  egress: (typeof sandboxEgressModes)[number];
  egressAllow: EgressAllowEntry[];
  egressLimits: SandboxEgressLimits;
  cgroups: SandboxCgroupsMode;
}
