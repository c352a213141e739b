import type { Scope } from "@weft/contract";
import type { federationPolicies } from "../db/schema/index.ts";

export type FederationPolicyRecord = Omit<typeof federationPolicies.$inferSelect, "scopes"> & { scopes: Scope[] };

export function toFederationPolicyRecord(row: typeof federationPolicies.$inferSelect): FederationPolicyRecord {
  return { ...row, scopes: row.scopes as Scope[] };
}
