import { rpc } from "../implementer.ts";
import { setPausedThroughRpc } from "./set-paused.ts";

/** `schedules.resume`: audited; a later deploy re-applies the config's `enabled`. */
export const resume = rpc.schedules.resume.handler(({ input, context }) => setPausedThroughRpc(context, input, false));
