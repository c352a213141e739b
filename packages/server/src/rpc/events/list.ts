import { listEvents } from "../../events/list-events.ts";
import { rpc } from "../implementer.ts";
import { toTimestampPageEnvelope, toTimestampPageRequest } from "../pagination.ts";
import { requireProjectAccess } from "../project-access.ts";
import { toEvent } from "./to-event.ts";

/** `events.list`: a project's events, newest first, paged by a timestamp cursor. */
export const list = rpc.events.list.handler(async ({ input, context }) => {
  const page = toTimestampPageRequest(input);
  const project = await requireProjectAccess(context, input.projectId, { access: "read" });
  const result = await listEvents(context.platform.database.db, { projectId: project.id, name: input.name, page });
  return toTimestampPageEnvelope(result, toEvent);
});
