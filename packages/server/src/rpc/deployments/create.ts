import { createDeployment } from "../../deployments/create-deployment.ts";
import { rpc } from "../implementer.ts";
import { actorOf, requireProjectAccess } from "../project-access.ts";
import { requireScope } from "../require-scope.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toDeployment } from "./to-deployment.ts";

/** `deployments.create`: validates and stores a deployment, which becomes the active one. */
export const create = rpc.deployments.create
  .use(requireScope("deployments:write"))
  .handler(async ({ input, context }) => {
    const project = await requireProjectAccess(context, input.projectId, { access: "write" });
    const { platform } = context;
    const created = await createDeployment(platform.database.db, platform, {
      projectId: project.id,
      manifest: input.manifest,
      bundle: input.bundle,
      actor: { ...actorOf(context), workspaceId: project.workspaceId },
    });
    return toDeployment(valueOrRpcError(created, { prefix: ["manifest"] }));
  });
