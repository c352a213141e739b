import type { Schedule } from "@weft/contract";
import { setSchedulePaused } from "../../schedules/schedule-pausing.ts";
import type { AuthenticatedContext } from "../context.ts";
import { requireProjectChange } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toSchedule } from "./to-schedule.ts";

/** `schedules.pause` (`paused`) and `schedules.resume`: audited; see `setSchedulePaused` for how each lasts. */
export async function setPausedThroughRpc(
  context: AuthenticatedContext,
  target: { projectId: string; name: string },
  paused: boolean,
): Promise<Schedule> {
  const projectChange = await requireProjectChange(context, target.projectId);
  const result = await setSchedulePaused(
    context.platform.database.db,
    context.platform,
    { ...projectChange, name: target.name },
    paused,
  );
  return toSchedule(valueOrRpcError(result));
}
