import { ORPCError } from "@orpc/server";
import { getDeployment } from "../../deployments/read-deployments.ts";
import { notFoundMessage } from "../../shared/service-result.ts";
import { rpc } from "../implementer.ts";
import { requireProjectAccess } from "../project-access.ts";
import { notFound } from "../rpc-errors.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toDeployment } from "./to-deployment.ts";

/** `deployments.get`: one deployment of a project the caller can see. */
export const get = rpc.deployments.get.handler(async ({ input, context }) => {
  const deployment = valueOrRpcError(await getDeployment(context.platform.database.db, input.deploymentId));
  // Another tenant's deployment is as invisible as one that does not exist.
  await requireProjectAccess(context, deployment.projectId, { access: "read" }).catch((error: unknown) => {
    if (error instanceof ORPCError && error.code === "NOT_FOUND") throw notFound(notFoundMessage("deployment"));
    throw error;
  });
  return toDeployment(deployment);
});
