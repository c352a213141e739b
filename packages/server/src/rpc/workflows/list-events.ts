import { eventsDefaultPageSize } from "@weft/contract";
import { decodePosition, type EventPosition, streamStart } from "../../execution-events/event-position.ts";
import { type ExecutionEventRecord, listEvents as listEventsService } from "../../execution-events/index.ts";
import { rpc } from "../implementer.ts";
import { requireProjectAccess } from "../project-access.ts";
import { badRequest } from "../rpc-errors.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { requireExecutionAccess } from "./execution-access.ts";

/** The position a cursor names; a forged one is refused before any query. */
export function eventCursorPosition(cursor: string | undefined, field: string): EventPosition {
  if (cursor === undefined) return streamStart;
  const position = decodePosition(cursor);
  if (position === undefined) {
    throw badRequest("Input validation failed", [
      { path: [field], message: "Not a cursor of this stream; use nextCursor or an event's id." },
    ]);
  }
  return position;
}

export function toEvent(event: ExecutionEventRecord) {
  const { position: _position, at, ...rest } = event;
  return { ...rest, at: at.toISOString() };
}

/** `workflows.listEvents`: the logs, steps, attempts and ends of an execution or a project, after a cursor. */
export const listEvents = rpc.workflows.listEvents.handler(async ({ input, context }) => {
  const after = eventCursorPosition(input.cursor, "cursor");
  let scope: { executionId: string } | { projectId: string };
  if (input.executionId !== undefined) {
    await requireExecutionAccess(context, input.executionId, { access: "read" });
    scope = { executionId: input.executionId };
  } else {
    scope = { projectId: (await requireProjectAccess(context, input.projectId ?? "", { access: "read" })).id };
  }
  const page = valueOrRpcError(
    await listEventsService(context.platform.database.db, {
      scope,
      after,
      limit: input.limit ?? eventsDefaultPageSize,
    }),
  );
  return { data: page.events.map(toEvent), nextCursor: page.nextCursor };
});
