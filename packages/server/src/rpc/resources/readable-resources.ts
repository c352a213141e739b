import type { Resource, ResourceKind } from "@weft/contract";
import type { ProjectRecord } from "../../projects/project-record.ts";
import { listDeployedResources } from "../../resources/deployed-resources.ts";
import type { AuthenticatedContext } from "../context.ts";
import { requireProjectAccess } from "../project-access.ts";

/**
 * What the active deployment of a project the caller may see defines, of one kind or of all, with
 * public addresses; the project comes too, for the answers that name it.
 */
export async function readableDeployedResources(
  context: AuthenticatedContext,
  input: { projectId: string; kind?: ResourceKind | undefined },
): Promise<{ project: ProjectRecord; resources: Resource[] }> {
  const project = await requireProjectAccess(context, input.projectId, { access: "read" });
  const resources = await listDeployedResources(context.platform.database.db, {
    projectId: project.id,
    baseUrl: context.platform.config.baseUrl,
    kind: input.kind,
  });
  return { project, resources };
}
