import type { Transaction } from "../db/database.ts";
import { activeDeployments } from "../db/schema/index.ts";
import type { StoredManifest } from "../db/schema/stored-manifest.ts";
import { replaceSchedules } from "../schedules/replace-schedules.ts";
import type { ServiceResult } from "../shared/service-result.ts";
import { claimGlobalFormNames } from "./global-form-names.ts";

/**
 * Points the project's one active deployment at `deployment`, whether or not it had one, and makes
 * its schedules and instance-wide form names the project's, in the caller's transaction. A form
 * name another project holds is refused: the caller rolls its transaction back.
 */
export async function makeActive(
  tx: Transaction,
  projectId: string,
  deployment: { id: string; manifest: StoredManifest },
  now: Date,
): Promise<ServiceResult<void>> {
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
  return claimGlobalFormNames(tx, projectId, deployment.manifest.forms, now);
}
