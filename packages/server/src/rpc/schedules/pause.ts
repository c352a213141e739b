import { pauseSchedule } from "../../schedules/schedule-pausing.ts";
import { rpc } from "../implementer.ts";
import { requireProjectChange } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toSchedule } from "./to-schedule.ts";

/** `schedules.pause`: audited; see `pauseSchedule` for how it lasts across deploys. */
export const pause = rpc.schedules.pause.handler(async ({ input, context }) => {
  const projectChange = await requireProjectChange(context, input.projectId);
  const result = await pauseSchedule(context.platform.database.db, context.platform, {
    ...projectChange,
    name: input.name,
  });
  return toSchedule(valueOrRpcError(result));
});
