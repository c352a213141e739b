import { activateDeployment } from "../../deployments/read-deployments.ts";
import { rpc } from "../implementer.ts";
import { actorOf, requireProjectAccess } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toDeployment } from "./to-deployment.ts";

/** `deployments.activate`: makes an earlier deployment the active one (rollback). */
export const activate = rpc.deployments.activate.handler(async ({ input, context }) => {
  const project = await requireProjectAccess(context, input.projectId, { access: "write" });
  const { platform } = context;
  const deps = { ...platform, catalogue: platform.config.billing };
  const activated = await activateDeployment(platform.database.db, deps, {
    projectId: project.id,
    deploymentId: input.deploymentId,
    actor: { ...actorOf(context), workspaceId: project.workspaceId },
  });
  return toDeployment(valueOrRpcError(activated));
});
