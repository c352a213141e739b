import { rpc } from "../implementer.ts";
import { setPausedThroughRpc } from "./set-paused.ts";

/** `schedules.pause`: audited; the pause lasts across deploys until `schedules.resume`. */
export const pause = rpc.schedules.pause.handler(({ input, context }) => setPausedThroughRpc(context, input, true));
