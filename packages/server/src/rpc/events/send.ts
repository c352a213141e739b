import { sendEvent } from "../../events/send-event.ts";
import { rpc } from "../implementer.ts";
import { requireProjectAccess } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toEvent } from "./to-event.ts";

/** `events.send`: starts the subscribed workflows, resumes the waits and cancels as `cancelOn` says, in one transaction. */
export const send = rpc.events.send.handler(async ({ input, context }) => {
  const project = await requireProjectAccess(context, input.projectId, { access: "write" });
  const { platform } = context;
  const sent = await sendEvent(platform.database.db, platform, {
    projectId: project.id,
    name: input.name,
    data: input.data,
    id: input.id,
    source: { kind: "api" },
  });
  const { duplicate, skipped, ...event } = valueOrRpcError(sent);
  return { ...toEvent(event), duplicate, skipped };
});
