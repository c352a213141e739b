import type { Integration } from "@weft/contract";
import type { IntegrationRecord } from "../../integrations/integration-record.ts";

/** An integration as every procedure answers it: each secret only as its masked hint. */
export function toIntegration(record: IntegrationRecord): Integration {
  return {
    name: record.name,
    kind: record.kind,
    config: record.config,
    secrets: Object.fromEntries(
      Object.entries(record.secrets).map(([secret, stored]) => [
        secret,
        { hint: stored.hint, changedAt: stored.changedAt, changedBy: stored.changedBy },
      ]),
    ),
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}
