import { type AuditDependencies, recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Transaction } from "../db/database.ts";
import { activeDeployments } from "../db/schema/index.ts";
import type { StoredManifest } from "../db/schema/stored-manifest.ts";
import { replaceSchedules } from "../schedules/replace-schedules.ts";
import type { ServiceResult } from "../shared/service-result.ts";
import { claimGlobalFormNames } from "./global-form-names.ts";

/** Who deploys or activates a deployment, for the audit log. */
export interface DeploymentActor {
  accountId?: string | undefined;
  credentialId?: string | undefined;
  workspaceId?: string | undefined;
}

/**
 * Points the project's one active deployment at `deployment`, whether or not it had one, makes
 * its schedules and instance-wide form names the project's, and records `change.action` in the
 * audit log, in the caller's transaction. A form name another project holds is refused (and
 * nothing recorded): the caller rolls its transaction back.
 */
export async function makeActive(
  tx: Transaction,
  deps: AuditDependencies,
  change: {
    projectId: string;
    actor: DeploymentActor | undefined;
    action: "deployment.created" | "deployment.activated";
    /** Recorded with the project and the deployment's number. */
    data?: Record<string, unknown>;
    now: Date;
  },
  deployment: { id: string; number: number; manifest: StoredManifest },
): Promise<ServiceResult<void>> {
  const { projectId, now } = change;
  await tx
    .insert(activeDeployments)
    .values({ projectId, deploymentId: deployment.id, activatedAt: now })
    .onConflictDoUpdate({
      target: activeDeployments.projectId,
      set: { deploymentId: deployment.id, activatedAt: now },
    });
  await replaceSchedules(tx, {
    projectId,
    deploymentId: deployment.id,
    schedules: deployment.manifest.schedules ?? [],
    now,
  });
  const claimed = await claimGlobalFormNames(tx, projectId, deployment.manifest.forms, now);
  if (!claimed.ok) return claimed;
  await recordAuditEvent(tx, deps, {
    action: change.action,
    targetType: "deployment",
    targetId: deployment.id,
    workspaceId: change.actor?.workspaceId,
    actor: change.actor,
    data: { projectId, number: deployment.number, ...change.data },
  });
  return claimed;
}
