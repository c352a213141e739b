import { listSchedules } from "../../schedules/list-schedules.ts";
import { rpc } from "../implementer.ts";
import { stringKeyCursor, toPageEnvelope, toPageRequest } from "../pagination.ts";
import { requireProjectAccess } from "../project-access.ts";
import { toSchedule } from "./to-schedule.ts";

/** A schedule's place in the list: its name, unique within the project. */
const scheduleCursor = stringKeyCursor("name");

/** `schedules.list`: the project's schedules with their next and last runs, by name. */
export const list = rpc.schedules.list.handler(async ({ input, context }) => {
  const page = toPageRequest(input.pagination, scheduleCursor);
  const project = await requireProjectAccess(context, input.projectId, { access: "read" });
  const result = await listSchedules(context.platform.database.db, { projectId: project.id, page });
  return toPageEnvelope(result, toSchedule, (schedule) => scheduleCursor.encode(schedule.name));
});
