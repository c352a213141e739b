import { createDeployment } from "../../deployments/create-deployment.ts";
import { integrationKeyring } from "../../integrations/secret-sealing.ts";
import { rpc } from "../implementer.ts";
import { actorOf, requireProjectAccess } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toDeployment } from "./to-deployment.ts";

/**
 * `deployments.create`: validates and stores a deployment, which becomes the active one; the answer
 * carries the signing secret of each webhook alert URL new to the project, the only time it is shown.
 */
export const create = rpc.deployments.create.handler(async ({ input, context }) => {
  const project = await requireProjectAccess(context, input.projectId, { access: "write" });
  const { platform } = context;
  const deps = { ...platform, keyring: integrationKeyring(platform.config), catalogue: platform.config.billing };
  const created = await createDeployment(platform.database.db, deps, {
    projectId: project.id,
    manifest: input.manifest,
    bundle: input.bundle,
    actor: { ...actorOf(context), workspaceId: project.workspaceId },
  });
  const { alertSecrets, ...deployment } = valueOrRpcError(created, { prefix: ["manifest"] });
  return { ...toDeployment(deployment), ...(alertSecrets.length === 0 ? {} : { alertSecrets }) };
});
