import { runWorkflow } from "../../workflows/run-workflow.ts";
import { rpc } from "../implementer.ts";
import { requireProjectAccess } from "../project-access.ts";
import { requireScope } from "../require-scope.ts";
import { conflict } from "../rpc-errors.ts";
import { mapServiceErrors } from "../service-errors.ts";

/** `workflows.run`: validates the input against the workflow's schema and queues an execution. */
export const run = rpc.workflows.run.use(requireScope("projects:write")).handler(async ({ input, context }) => {
  const project = await requireProjectAccess(context, input.projectId, { access: "write" });
  const { platform } = context;
  const enqueued = await mapServiceErrors(
    () =>
      runWorkflow(platform.database.db, platform, {
        projectId: project.id,
        workflow: input.workflow,
        input: input.input,
        idempotencyKey: input.idempotencyKey,
      }),
    { prefix: ["input"] },
  );
  if (!enqueued.sameRequest) {
    throw conflict("This idempotencyKey was used with another input within 24 hours; send a new key for a new run.");
  }
  return { executionId: enqueued.executionId };
});
