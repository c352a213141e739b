import { type AuditDependencies, type ProjectChange, recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Transaction } from "../db/database.ts";
import type { integrations } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import type { SecretKeyring } from "./secret-sealing.ts";

/** An integration as stored: its secrets sealed, each with its masked hint. */
export type IntegrationRecord = typeof integrations.$inferSelect;

/** What the services that write secrets need: the audit's clock and ids, and the keys that seal. */
export interface IntegrationDependencies {
  clock: Clock;
  ids: IdGenerator;
  keyring: SecretKeyring;
}

/** The one wording of a missing integration; it names only what the caller sent. */
export function missingIntegrationMessage(name: string): string {
  return `The project has no integration "${name}".`;
}

/** Records a change to the integration `name` of the project, with its project and name in `data`. */
export async function recordIntegrationEvent(
  tx: Transaction,
  deps: AuditDependencies,
  change: ProjectChange & { action: string; name: string; data: Record<string, unknown> },
): Promise<void> {
  await recordAuditEvent(tx, deps, {
    action: change.action,
    targetType: "integration",
    targetId: `${change.projectId}/${change.name}`,
    workspaceId: change.workspaceId,
    actor: change.actor,
    data: { projectId: change.projectId, name: change.name, ...change.data },
  });
}
