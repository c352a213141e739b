import { getActiveDeployment } from "../../deployments/read-deployments.ts";
import { rpc } from "../implementer.ts";
import { compareNames, pageOfSortedList, stringKeyCursor } from "../pagination.ts";
import { requireProjectAccess } from "../project-access.ts";

/** `workflows.list`: the workflows of the project's active deployment by name (none before the first deploy). */
export const list = rpc.workflows.list.handler(async ({ input, context }) => {
  const project = await requireProjectAccess(context, input.projectId, { access: "read" });
  const deployment = await getActiveDeployment(context.platform.database.db, project.id);
  const workflows =
    deployment === undefined
      ? []
      : deployment.manifest.workflows
          .map((workflow) => ({ ...workflow, deploymentId: deployment.id, deploymentNumber: deployment.number }))
          .sort((a, b) => compareNames(a.name, b.name));
  return pageOfSortedList(
    workflows,
    {
      compare: (workflow, name) => compareNames(workflow.name, name),
      keyOf: (workflow) => workflow.name,
      cursor: stringKeyCursor("name"),
    },
    input.pagination,
  );
});
