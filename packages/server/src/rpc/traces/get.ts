import { getTrace } from "../../traces/read-traces.ts";
import { rpc } from "../implementer.ts";
import { requireProjectAccess } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toSpan } from "./to-span.ts";

/** `traces.get`: the span tree of one trace. */
export const get = rpc.traces.get.handler(async ({ input, context }) => {
  const project = await requireProjectAccess(context, input.projectId, { access: "read" });
  const roots = valueOrRpcError(
    await getTrace(context.platform.database.db, { projectId: project.id, traceId: input.traceId }),
  );
  return { traceId: input.traceId, spans: roots.map(toSpan) };
});
