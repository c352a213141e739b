import { runScheduleNow } from "../../schedules/run-schedule-now.ts";
import { rpc } from "../implementer.ts";
import { requireProjectChange } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toSchedule } from "./to-schedule.ts";

/** `schedules.runNow`: audited (`schedule.run`); the schedule's next tick is unchanged. */
export const runNow = rpc.schedules.runNow.handler(async ({ input, context }) => {
  const projectChange = await requireProjectChange(context, input.projectId);
  const started = await runScheduleNow(context.platform.database.db, context.platform, {
    ...projectChange,
    name: input.name,
  });
  const { executionId, schedule } = valueOrRpcError(started, { prefix: ["input"] });
  return { executionId, schedule: toSchedule(schedule) };
});
