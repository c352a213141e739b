import { randomBytes } from "node:crypto";
import type { Database } from "../../src/db/database.ts";
import { waitTokens } from "../../src/db/schema/index.ts";
import { newSpanId } from "../../src/engine/trace-ids.ts";
import { tokenHashOf } from "../../src/wait-tokens/token-secret.ts";

/** A token id of the right shape; whether it names a token depends on what was stored. */
export function randomTokenId(): string {
  return `wtk_${randomBytes(32).toString("base64url")}`;
}

/**
 * Stores a pending wait token of `executionId`, as a workflow's `ctx.createToken` would, for tests
 * that need someone's token without running a workflow that waits; returns its id.
 */
export async function storeTestWaitToken(
  db: Database,
  token: { executionId: string; projectId: string; now: Date },
): Promise<string> {
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
