import type { deployments } from "../db/schema/index.ts";
import type { StoredManifest } from "../db/schema/stored-manifest.ts";

/** A deployment as services return it: everything but the bundle text. */
export interface DeploymentSummary {
  id: string;
  projectId: string;
  number: number;
  active: boolean;
  manifest: StoredManifest;
  bundleSha256: string;
  bundleBytes: number;
  createdAt: Date;
}

export function toDeploymentSummary(
  row: Omit<typeof deployments.$inferSelect, "bundle">,
  options: { active: boolean },
): DeploymentSummary {
  return {
    id: row.id,
    projectId: row.projectId,
    number: row.number,
    active: options.active,
    manifest: row.manifest,
    bundleSha256: row.bundleSha256,
    bundleBytes: row.bundleBytes,
    createdAt: row.createdAt,
  };
}
