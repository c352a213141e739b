import { randomBytes } from "node:crypto";
import { type Database, executions, isFinal, newSpanId, tokenHashOf, waitTokens } from "@weft/server/internals";
import { eq } from "drizzle-orm";

/** A token id of the right shape; whether it names a token depends on what was stored. */
export function randomTokenId(): string {
  return `wtk_${randomBytes(32).toString("base64url")}`;
}

/**
 * Stores a pending wait token of `executionId`, as a workflow's `ctx.createToken` would, for tests
 * that need someone's token without running a workflow that waits; returns its id. It waits for
 * the execution to end first: an execution's end closes its pending tokens.
 */
export async function storeTestWaitToken(
  db: Database,
  token: { executionId: string; projectId: string; now: Date },
): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const [row] = await db
      .select({ status: executions.status })
      .from(executions)
      .where(eq(executions.id, token.executionId));
    if (row !== undefined && isFinal(row.status)) break;
    if (Date.now() > deadline) throw new Error(`execution ${token.executionId} did not end`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const tokenId = randomTokenId();
  await db.insert(waitTokens).values({
    executionId: token.executionId,
    name: "approval",
    projectId: token.projectId,
    tokenHash: tokenHashOf(tokenId),
    nonce: "stored by a test",
    status: "pending",
    spanId: newSpanId(),
    createdAt: token.now,
    expiresAt: new Date(token.now.getTime() + 24 * 60 * 60 * 1000),
  });
  return tokenId;
}
