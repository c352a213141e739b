import { listTraces } from "../../traces/read-traces.ts";
import { rpc } from "../implementer.ts";
import { toTimestampPageEnvelope, toTimestampPageRequest } from "../pagination.ts";
import { requireProjectAccess } from "../project-access.ts";

/** `traces.list`: a project's traces, newest first, paged by a timestamp cursor. */
export const list = rpc.traces.list.handler(async ({ input, context }) => {
  const page = toTimestampPageRequest(input);
  const project = await requireProjectAccess(context, input.projectId, { access: "read" });
  const status = input.status === undefined ? undefined : Array.isArray(input.status) ? input.status : [input.status];
  const result = await listTraces(context.platform.database.db, {
    projectId: project.id,
    from: input.from === undefined ? undefined : new Date(input.from),
    to: input.to === undefined ? undefined : new Date(input.to),
    workflow: input.workflow,
    status,
    page,
  });
  return toTimestampPageEnvelope(result, (trace) => ({
    ...trace,
    startTime: trace.startTime.toISOString(),
    endTime: trace.endTime === null ? null : trace.endTime.toISOString(),
  }));
});
