import { ORPCError } from "@orpc/server";
import { completeWaitToken } from "../../wait-tokens/complete-wait-token.ts";
import { findWaitToken, tokenNotFoundMessage } from "../../wait-tokens/find-wait-token.ts";
import { rpc } from "../implementer.ts";
import { actorOf, requireProjectAccess } from "../project-access.ts";
import { notFound } from "../rpc-errors.ts";
import { valueOrRpcError } from "../service-failure.ts";

/** `workflows.completeToken`: completes a wait token of a project the caller may change; its execution resumes. */
export const completeToken = rpc.workflows.completeToken.handler(async ({ input, context }) => {
  const { platform } = context;
  const token = valueOrRpcError(await findWaitToken(platform.database.db, platform, input.tokenId));
  let workspaceId: string;
  try {
    ({ workspaceId } = await requireProjectAccess(context, token.projectId, { access: "write" }));
  } catch (error) {
    // A token of a project the caller cannot see reads like one that does not exist.
    if (error instanceof ORPCError && error.code === "NOT_FOUND") throw notFound(tokenNotFoundMessage);
    throw error;
  }
  const completed = await completeWaitToken(platform.database.db, platform, {
    tokenId: input.tokenId,
    data: input.data,
    projectId: token.projectId,
    // A signed-in caller: a members-only token is theirs to answer, and the answer is theirs on record.
    completedBy: context.principal.accountId,
    audit: { actor: actorOf(context), workspaceId, ids: platform.ids },
  });
  const { executionId } = valueOrRpcError(completed, { prefix: ["data"] });
  return { executionId, status: "completed" as const };
});
