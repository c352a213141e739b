import { getActiveDeployment } from "../../deployments/read-deployments.ts";
import { rpc } from "../implementer.ts";
import { requireProjectAccess } from "../project-access.ts";
import { notFound } from "../rpc-errors.ts";

/** `workflows.get`: one workflow of the active deployment. */
export const get = rpc.workflows.get.handler(async ({ input, context }) => {
  const project = await requireProjectAccess(context, input.projectId, { access: "read" });
  const deployment = await getActiveDeployment(context.platform.database.db, project.id);
  const workflow = deployment?.manifest.workflows.find((entry) => entry.name === input.workflow);
  if (deployment === undefined || workflow === undefined) {
    throw notFound(`The active deployment of ${project.id} defines no workflow "${input.workflow}".`);
  }
  return { ...workflow, deploymentId: deployment.id, deploymentNumber: deployment.number };
});
