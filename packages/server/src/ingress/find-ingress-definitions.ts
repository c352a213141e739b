import { definitionNamePattern, type WorkflowManifest } from "@weft/contract";
import { eq } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { deployments } from "../db/schema/index.ts";
import type { StoredManifest } from "../db/schema/stored-manifest.ts";
import { hasIdShape } from "../shared/ids.ts";
import type { ActiveDeploymentReader } from "./active-deployment-reader.ts";

/** A form or webhook of a project's active deployment, with the workflow it starts. */
export interface ActiveDefinition<T> {
  projectId: string;
  deploymentId: string;
  definition: T;
  workflow: WorkflowManifest;
}

/**
 * Manifests by deployment id. Deployments are immutable, so a cached manifest never goes stale and
 * losing the cache costs only a query; which deployment is active is what can change (see
 * `active-deployment-reader.ts`).
 */
export interface ManifestCache {
  get(deploymentId: string): StoredManifest | undefined;
  set(deploymentId: string, manifest: StoredManifest): void;
}

export function createManifestCache(limit = 500): ManifestCache {
  const entries = new Map<string, StoredManifest>();
  return {
    get: (deploymentId) => {
      const manifest = entries.get(deploymentId);
      if (manifest !== undefined) {
        // Re-inserting keeps the map in least-recently-used order.
        entries.delete(deploymentId);
        entries.set(deploymentId, manifest);
      }
      return manifest;
    },
    set: (deploymentId, manifest) => {
      entries.set(deploymentId, manifest);
      const oldest = entries.keys().next();
      if (entries.size > limit && oldest.done !== true) entries.delete(oldest.value);
    },
  };
}

export interface DefinitionLookup {
  db: Database;
  manifests: ManifestCache;
  activeDeployments: ActiveDeploymentReader;
}

async function activeManifest(
  lookup: DefinitionLookup,
  projectId: string,
): Promise<{ deploymentId: string; manifest: StoredManifest } | undefined> {
  const deploymentId = await lookup.activeDeployments(projectId);
  if (deploymentId === undefined) return undefined;
  const cached = lookup.manifests.get(deploymentId);
  if (cached !== undefined) return { deploymentId, manifest: cached };
  const [row] = await lookup.db
    .select({ manifest: deployments.manifest })
    .from(deployments)
    .where(eq(deployments.id, deploymentId));
  if (row === undefined) return undefined;
  lookup.manifests.set(deploymentId, row.manifest);
  return { deploymentId, manifest: row.manifest };
}

/**
 * The form or webhook of that name in the project's active deployment, with the workflow it starts,
 * whatever its visibility or state.
 */
export async function findActiveDefinition<K extends "forms" | "webhooks">(
  lookup: DefinitionLookup,
  projectId: string,
  kind: K,
  name: string,
): Promise<ActiveDefinition<StoredManifest[K][number]> | undefined> {
  // Public paths carry anything a client types: what cannot name a project or a definition names nothing.
  if (!hasIdShape(projectId, "project") || !definitionNamePattern.test(name)) return undefined;
  const active = await activeManifest(lookup, projectId);
  if (active === undefined) return undefined;
  const definitions: readonly StoredManifest[K][number][] = active.manifest[kind];
  const definition = definitions.find((entry) => entry.name === name);
  const workflow = active.manifest.workflows.find((entry) => entry.name === definition?.workflow);
  if (definition === undefined || workflow === undefined) return undefined;
  return { projectId, deploymentId: active.deploymentId, definition, workflow };
}

/** A webhook of a project's active deployment that sends an event rather than starting a workflow. */
export interface ActiveEventWebhook {
  projectId: string;
  definition: StoredManifest["webhooks"][number];
  event: string;
}

/** The webhook of that name in the project's active deployment, if it sends an event (`webhook({ name, event })`). */
export async function findActiveEventWebhook(
  lookup: DefinitionLookup,
  projectId: string,
  name: string,
): Promise<ActiveEventWebhook | undefined> {
  if (!hasIdShape(projectId, "project") || !definitionNamePattern.test(name)) return undefined;
  const active = await activeManifest(lookup, projectId);
  const definition = active?.manifest.webhooks.find((entry) => entry.name === name);
  if (definition?.event === undefined) return undefined;
  return { projectId, definition, event: definition.event };
}
