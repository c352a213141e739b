import type { FederationPolicy } from "@weft/contract";
import type { FederationPolicyRecord } from "../../federation/federation-policy-record.ts";

/** The wire shape of a federation policy. */
export function toFederationPolicy(record: FederationPolicyRecord): FederationPolicy {
  return {
    id: record.id,
    workspaceId: record.workspaceId,
    projectId: record.projectId,
    issuer: record.issuer,
    audience: record.audience,
    subject: record.subject,
    claims: record.claims,
    scopes: record.scopes,
    maxTtlSeconds: record.maxTtlSeconds,
    createdBy: record.createdByAccountId,
    createdAt: record.createdAt.toISOString(),
  };
}
