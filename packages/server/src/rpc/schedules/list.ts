import { listSchedules } from "../../schedules/list-schedules.ts";
import { rpc } from "../implementer.ts";
import { pageOfProjectRowsByName } from "../project-rows-by-name.ts";
import { toSchedule } from "./to-schedule.ts";

/** `schedules.list`: the project's schedules with their next and last runs, by name. */
export const list = rpc.schedules.list.handler(({ input, context }) =>
  pageOfProjectRowsByName(context, input, { cursorField: "name", read: listSchedules, toResult: toSchedule }),
);
