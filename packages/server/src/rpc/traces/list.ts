import { listTraces } from "../../traces/read-traces.ts";
import { rpc } from "../implementer.ts";
import { requireProjectAccess } from "../project-access.ts";
import { requireScope } from "../require-scope.ts";
import { mapServiceErrors } from "../service-errors.ts";

/** `traces.list`: a project's traces, newest first, paged by a timestamp cursor. */
export const list = rpc.traces.list.use(requireScope("projects:read")).handler(async ({ input, context }) => {
  const project = await requireProjectAccess(context, input.projectId, { access: "read" });
  const status = input.status === undefined ? undefined : Array.isArray(input.status) ? input.status : [input.status];
  const page = await mapServiceErrors(
    () =>
      listTraces(context.platform.database.db, {
        projectId: project.id,
        from: input.from === undefined ? undefined : new Date(input.from),
        to: input.to === undefined ? undefined : new Date(input.to),
        workflow: input.workflow,
        status,
        limit: input.limit,
        cursor: input.cursor,
      }),
    { prefix: ["cursor"] },
  );
  return {
    data: page.traces.map((trace) => ({
      ...trace,
      startTime: trace.startTime.toISOString(),
      endTime: trace.endTime === null ? null : trace.endTime.toISOString(),
    })),
    nextCursor: page.nextCursor,
  };
});
