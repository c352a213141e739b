import { and, eq } from "drizzle-orm";
import { recordAuditEvent } from "../../audit/record-audit-event.ts";
import type { Database, Transaction } from "../../db/database.ts";
import { oauthAuthorizationCodes, registrations } from "../../db/schema/index.ts";
import { findAccountByEmail } from "../../identity/accounts.ts";
import type { Clock } from "../../shared/clock.ts";
import type { IdGenerator } from "../../shared/ids.ts";
import { generateToken, hashSecret } from "../../shared/secrets.ts";
import { type AuthResult, refuse } from "../auth-error.ts";
import { maxClaimCodeAttempts } from "../claim-code.ts";
import type { AuthorizationRequest } from "./authorization-request.ts";

/** The cookie of the browser that started a sign-in: the registration's claim token, stored only as its digest. */
export const signInCookieName = "weft_oauth_sign_in";

/** OAuth 2.1 §4.1.2: a code lives long enough for the client to redeem it at once, and no longer. */
export const authorizationCodeLifetimeMs = 60 * 1000;

export type SignInState =
  /** No sign-in for this client in this browser (none, expired, used, or for another client). */
  | { kind: "none" }
  /** The approval mail is sent; the person has not approved yet. */
  | { kind: "awaiting-approval"; email: string }
  /** Approved in another browser, which showed a code; this browser has not typed it yet. */
  | { kind: "awaiting-code"; email: string }
  /** Approved in another browser, but its code expired or was typed wrong too often. */
  | { kind: "code-spent"; email: string }
  | { kind: "signed-in"; email: string };

/**
 * Where the browser's sign-in (its cookie is the registration's claim token) stands for the client
 * of an authorization request. Approved, it is signed in once no code is left to type: approved in
 * this browser, none was issued; approved in another, this browser typed it. Reading it changes nothing.
 */
export async function signInState(
  db: Database,
  clock: Clock,
  signInToken: string | undefined,
  clientId: string,
): Promise<SignInState> {
  if (signInToken === undefined || !/^clm_[A-Za-z0-9_-]{43}$/.test(signInToken)) return { kind: "none" };
  const [row] = await db
    .select()
    .from(registrations)
    .where(and(eq(registrations.claimTokenHash, hashSecret(signInToken)), eq(registrations.type, "oauth-client")));
  if (row === undefined || row.clientId !== clientId || row.claimTokenExpiresAt === null) return { kind: "none" };
  if (clock.now().getTime() >= row.claimTokenExpiresAt.getTime()) return { kind: "none" };
  if (row.status === "pending") return { kind: "awaiting-approval", email: row.email };
  if (row.status !== "approved") return { kind: "none" };
  if (row.codeHash === null) return { kind: "signed-in", email: row.email };
  const codeLive =
    row.codeExpiresAt !== null &&
    clock.now().getTime() < row.codeExpiresAt.getTime() &&
    row.codeAttempts < maxClaimCodeAttempts;
  return { kind: codeLive ? "awaiting-code" : "code-spent", email: row.email };
}

type Deps = { clock: Clock; ids: IdGenerator };

/** Records a step of an OAuth sign-in against its registration, in the person's personal workspace. */
export async function recordSignInEvent(
  tx: Transaction,
  deps: Deps,
  signIn: { id: string; email: string; accountId: string | null; clientId: string | null },
  action: string,
  data: Record<string, unknown>,
): Promise<void> {
  const account = await findAccountByEmail(tx, signIn.email);
  await recordAuditEvent(tx, deps, {
    action,
    targetType: "registration",
    targetId: signIn.id,
    workspaceId: account?.personalWorkspaceId,
    actor: { accountId: signIn.accountId ?? undefined, email: signIn.email },
    data,
  });
}

/**
 * The person's answer on the consent page. Approve issues a single-use authorization code bound to
 * the request's client, redirect URI and PKCE challenge; deny closes the sign-in. Either way the
 * sign-in cookie is spent, so one sign-in grants at most one code.
 */
export function decideAuthorization(
  db: Database,
  deps: Deps,
  input: { signInToken: string; request: AuthorizationRequest; decision: "approve" | "deny" },
): Promise<AuthResult<{ code: string } | { denied: true }>> {
  return db.transaction(async (tx) => {
    const now = deps.clock.now();
    const [row] = await tx
      .select()
      .from(registrations)
      .where(eq(registrations.claimTokenHash, hashSecret(input.signInToken)))
      .for("update");
    if (
      row === undefined ||
      row.type !== "oauth-client" ||
      row.status !== "approved" ||
      row.codeHash !== null ||
      row.clientId !== input.request.client.clientId ||
      row.claimTokenExpiresAt === null ||
      now.getTime() >= row.claimTokenExpiresAt.getTime()
    ) {
      return refuse("invalid_request", "The sign-in expired or was already used; sign in again.");
    }
    if (input.decision === "deny") {
      await tx
        .update(registrations)
        .set({ status: "denied", claimTokenHash: null, decidedAt: now })
        .where(eq(registrations.id, row.id));
      await recordSignInEvent(tx, deps, row, "registration.denied", { clientId: row.clientId });
      return { ok: true, value: { denied: true } };
    }
    const code = generateToken("woc");
    await tx
      .update(registrations)
      .set({ claimTokenHash: null, scopes: input.request.scopes })
      .where(eq(registrations.id, row.id));
    await tx.insert(oauthAuthorizationCodes).values({
      codeHash: hashSecret(code),
      clientId: input.request.client.clientId,
      registrationId: row.id,
      redirectUri: input.request.redirectUri,
      codeChallenge: input.request.codeChallenge,
      scopes: input.request.scopes,
      createdAt: now,
      expiresAt: new Date(now.getTime() + authorizationCodeLifetimeMs),
    });
    await recordSignInEvent(tx, deps, row, "registration.consented", {
      clientId: row.clientId,
      scopes: input.request.scopes,
      redirectUri: input.request.redirectUri,
    });
    return { ok: true, value: { code } };
  });
}
