import { inArray, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { waitTokens } from "../db/schema/index.ts";
import { expireTokens, type TokenRow } from "./execution-state/index.ts";
import type { StoredTokenForReplay, TokenResult } from "./sandbox/protocol.ts";
import { type TokenIssuer, tokenIdOf, tokenUrl } from "./wait-token-ids.ts";

/** How a token ended, as the workflow sees it; none while it is pending. */
export function tokenResultOf(token: Pick<TokenRow, "status" | "data">): TokenResult | undefined {
  if (token.status === "completed") return { ok: true, data: token.data };
  if (token.status === "timed_out") return { ok: false, reason: "timeout" };
  return undefined;
}

/** A stored token as the sandbox replays it. */
export function replayedToken(
  issuer: TokenIssuer,
  token: Pick<TokenRow, "nonce" | "status" | "data">,
): StoredTokenForReplay {
  const id = tokenIdOf(issuer.key, token.nonce);
  return { id, url: tokenUrl(issuer.baseUrl, id), result: tokenResultOf(token) };
}

/**
 * The wait tokens of resumed executions, by execution id, after those whose expiry has come are
 * ended (`timed_out`): the one place a timeout is decided, under the worker's fresh lease.
 */
export async function loadStoredTokens(
  db: Database,
  issuer: TokenIssuer,
  executionIds: string[],
  now: Date,
): Promise<Map<string, Record<string, StoredTokenForReplay>>> {
  const byExecution = new Map<string, Record<string, StoredTokenForReplay>>();
  if (executionIds.length === 0) return byExecution;
  await expireTokens(db, sql`${inArray(waitTokens.executionId, executionIds)}`, now);
  const rows = await db
    .select({
      executionId: waitTokens.executionId,
      name: waitTokens.name,
      nonce: waitTokens.nonce,
      status: waitTokens.status,
      data: waitTokens.data,
    })
    .from(waitTokens)
    .where(inArray(waitTokens.executionId, executionIds));
  for (const row of rows) {
    // Without a prototype, so that a token named `__proto__` is a token like any other.
    const tokens = byExecution.get(row.executionId) ?? Object.create(null);
    tokens[row.name] = replayedToken(issuer, row);
    byExecution.set(row.executionId, tokens);
  }
  return byExecution;
}
