import { listExecutions as listExecutionsService } from "../../workflows/read-executions.ts";
import { rpc } from "../implementer.ts";
import { toPageEnvelope, toPageRequest } from "../pagination.ts";
import { requireProjectAccess } from "../project-access.ts";
import { toExecutionSummary } from "./to-execution.ts";

/** `workflows.listExecutions`: a project's executions, filtered by workflow, status and creation time. */
export const listExecutions = rpc.workflows.listExecutions.handler(async ({ input, context }) => {
  const page = toPageRequest(input.pagination);
  const project = await requireProjectAccess(context, input.projectId, { access: "read" });
  const status = input.status === undefined ? undefined : Array.isArray(input.status) ? input.status : [input.status];
  const result = await listExecutionsService(context.platform.database.db, {
    projectId: project.id,
    workflow: input.workflow,
    schedule: input.schedule,
    tags: input.tags,
    status,
    createdFrom: input.createdFrom === undefined ? undefined : new Date(input.createdFrom),
    createdTo: input.createdTo === undefined ? undefined : new Date(input.createdTo),
    page,
  });
  return { ...toPageEnvelope(result, toExecutionSummary), totalCountIsLowerBound: result.totalCountIsLowerBound };
});
