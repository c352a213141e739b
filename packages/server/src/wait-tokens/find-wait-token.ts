import { eq } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { type WaitTokenApprovers, type WaitTokenField, type WaitTokenStatus, waitTokens } from "../db/schema/index.ts";
import { tokenHashOf, tokenIdPattern } from "../engine/wait-token-ids.ts";
import type { Clock } from "../shared/clock.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";

/** One wording for a token that does not exist, has ended without a completion, or is someone else's. */
export const tokenNotFoundMessage = "No wait token with this id, or it has expired.";

export interface FoundWaitToken {
  executionId: string;
  projectId: string;
  name: string;
  status: WaitTokenStatus;
  expiresAt: Date;
  title: string | null;
  description: string | null;
  fields: WaitTokenField[] | null;
  approvers: WaitTokenApprovers;
}

/**
 * The token a presented id names, looked up by its SHA-256 (the id is not stored): a pending one
 * not yet expired, or a completed one (whose completion then answers 409). A token that timed out,
 * or whose execution ended, is not found, as is an id that cannot be a token's.
 */
export async function findWaitToken(
  db: Database,
  deps: { clock: Clock },
  tokenId: string,
): Promise<ServiceResult<FoundWaitToken>> {
  if (!tokenIdPattern.test(tokenId)) return fail.notFound({ message: tokenNotFoundMessage });
  const [row] = await db
    .select({
      executionId: waitTokens.executionId,
      projectId: waitTokens.projectId,
      name: waitTokens.name,
      status: waitTokens.status,
      expiresAt: waitTokens.expiresAt,
      title: waitTokens.title,
      description: waitTokens.description,
      fields: waitTokens.fields,
      approvers: waitTokens.approvers,
    })
    .from(waitTokens)
    .where(eq(waitTokens.tokenHash, tokenHashOf(tokenId)));
  if (row === undefined || !isLive(row, deps.clock.now())) return fail.notFound({ message: tokenNotFoundMessage });
  return ok(row);
}

function isLive(token: { status: WaitTokenStatus; expiresAt: Date }, now: Date): boolean {
  if (token.status === "completed") return true;
  return token.status === "pending" && token.expiresAt.getTime() > now.getTime();
}
