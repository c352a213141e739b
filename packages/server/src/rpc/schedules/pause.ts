import { pauseSchedule } from "../../schedules/schedule-pausing.ts";
import { rpc } from "../implementer.ts";
import { actorOf, requireProjectAccess } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toSchedule } from "./to-schedule.ts";

/** `schedules.pause`: audited; see `pauseSchedule` for how it lasts across deploys. */
export const pause = rpc.schedules.pause.handler(async ({ input, context }) => {
  const project = await requireProjectAccess(context, input.projectId, { access: "write" });
  const result = await pauseSchedule(context.platform.database.db, context.platform, {
    projectId: project.id,
    workspaceId: project.workspaceId,
    name: input.name,
    actor: actorOf(context),
  });
  return toSchedule(valueOrRpcError(result));
});
