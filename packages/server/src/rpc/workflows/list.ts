import { getActiveDeployment } from "../../deployments/read-deployments.ts";
import { rpc } from "../implementer.ts";
import { requireProjectAccess } from "../project-access.ts";

/** `workflows.list`: the workflows of the project's active deployment (none before the first deploy). */
export const list = rpc.workflows.list.handler(async ({ input, context }) => {
  const project = await requireProjectAccess(context, input.projectId, { access: "read" });
  const deployment = await getActiveDeployment(context.platform.database.db, project.id);
  if (deployment === undefined) return { deploymentId: null, results: [] };
  return {
    deploymentId: deployment.id,
    results: deployment.manifest.workflows.map((workflow) => ({
      ...workflow,
      deploymentId: deployment.id,
      deploymentNumber: deployment.number,
    })),
  };
});
