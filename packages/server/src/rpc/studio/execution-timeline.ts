import { readExecutionTimeline } from "../../studio/execution-timeline.ts";
import { rpc } from "../implementer.ts";
import { requireProjectAccess, requireWholeWorkspaceReach, requireWorkspaceAccess } from "../project-access.ts";

/** `studio.executionTimeline`: a project's or a workspace's executions per bucket and status. */
export const executionTimeline = rpc.studio.executionTimeline.handler(async ({ input, context }) => {
  const { principal, platform } = context;
  let of: { projectId: string } | { workspaceId: string };
  if (input.projectId !== undefined) {
    of = { projectId: (await requireProjectAccess(context, input.projectId, { access: "read" })).id };
  } else {
    const workspaceId = input.workspaceId ?? "";
    requireWorkspaceAccess(principal, workspaceId, "read");
    requireWholeWorkspaceReach(principal);
    of = { workspaceId };
  }
  return readExecutionTimeline(platform.database.db, {
    of,
    from: new Date(input.from),
    to: new Date(input.to),
    bucket: input.bucket,
  });
});
