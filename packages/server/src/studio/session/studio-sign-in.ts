import type { AuthResult } from "../../auth/auth-error.ts";
import { completeClaim, completeClaimInStartingBrowser } from "../../auth/complete-claim.ts";
import { type EmailRegistration, registerWithEmail } from "../../auth/register-with-email.ts";
import type { Database } from "../../db/database.ts";
import type { Mailer } from "../../mail/mailer.ts";
import type { Clock } from "../../shared/clock.ts";
import type { IdGenerator } from "../../shared/ids.ts";
import { type StartedStudioSession, startStudioSession, studioAgentDescription } from "./studio-sessions.ts";
import { studioSignInMail } from "./studio-sign-in-mail.ts";

/**
 * Starts a Studio sign-in: an email-verification registration of the agent "Weft Studio" with
 * every scope, approved from a mail and a page of Studio's own ("Sign in to Weft Studio"), under
 * Studio's path so that the browser that asked is recognised there and signed in with no code.
 */
export function startStudioSignIn(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator; mailer: Mailer; authUrl: string; studioUrl: string },
  email: string,
): Promise<AuthResult<EmailRegistration>> {
  return registerWithEmail(db, deps, {
    email,
    agentDescription: studioAgentDescription,
    studio: { studioUrl: deps.studioUrl, mail: studioSignInMail },
  });
}

/**
 * Completes a Studio sign-in approved in the browser that started it, whose pending cookie (the
 * claim token) is the proof: no code. Opens the session as `completeStudioSignIn` does.
 */
export async function completeStudioSignInInStartingBrowser(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator },
  claimToken: string,
): Promise<AuthResult<StartedStudioSession & { accountId: string }>> {
  const claimed = await completeClaimInStartingBrowser(db, deps, claimToken);
  if (!claimed.ok) return claimed;
  const { credentialId, accountId } = claimed.value;
  const session = await startStudioSession(db, deps, { credentialId, accountId });
  return { ok: true, value: { ...session, accountId } };
}

/**
 * Completes a Studio sign-in with the 6-digit code, through the claim agents use, and opens a
 * session acting through the credential it issues. The credential's secret is dropped here: only
 * the session reaches it, so it cannot outlive the session's rules on any other path.
 */
export async function completeStudioSignIn(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator; secretKeys: readonly Buffer[] },
  presented: { claimToken: string; code: string },
): Promise<AuthResult<StartedStudioSession & { accountId: string }>> {
  const claimed = await completeClaim(db, deps, presented);
  if (!claimed.ok) return claimed;
  const { credentialId, accountId } = claimed.value;
  const session = await startStudioSession(db, deps, { credentialId, accountId });
  return { ok: true, value: { ...session, accountId } };
}
