import { allScopes, type Scope } from "@weft/contract";
import { recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { registrations } from "../db/schema/index.ts";
import { normalizeEmail } from "../identity/accounts.ts";
import type { Mailer, MailMessage } from "../mail/mailer.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { generateToken, hashSecret } from "../shared/secrets.ts";
import { approvalMail } from "./approval-mail.ts";
import { type AuthResult, refuse } from "./auth-error.ts";
import { isDeliverableEmailAddress } from "./email-address.ts";
import { signInApprovalMail } from "./oauth2/sign-in-approval-mail.ts";
import type { SignInRequester } from "./oauth2/sign-in-requester.ts";

/** The claim token lives 30 minutes from registration; so does the approval link. */
export const claimTokenLifetimeMs = 30 * 60 * 1000;

export interface EmailRegistration {
  registrationId: string;
  claimToken: string;
  claimTokenExpires: Date;
  postClaimScopes: Scope[];
}

export function approvalPageUrl(authUrl: string, approvalToken: string): string {
  return `${authUrl}/agent/auth/approve?token=${approvalToken}`;
}

/**
 * The approval page of an OAuth sign-in: under `/oauth2/`, where the browser that started the
 * sign-in sends its cookie, so approving there needs no code.
 */
export function signInApprovalPageUrl(authUrl: string, approvalToken: string): string {
  return `${authUrl}/oauth2/approve?token=${approvalToken}`;
}

/** The same page, opened on its question "cancel this sign-in?", for the mail's "this was not me". */
export function signInCancelPageUrl(authUrl: string, approvalToken: string): string {
  return `${signInApprovalPageUrl(authUrl, approvalToken)}&answer=cancel`;
}

export function claimPageUrl(authUrl: string, registrationId: string): string {
  return `${authUrl}/agent/auth/claim/${registrationId}`;
}

/**
 * An OAuth client's sign-in on the authorize page: the registration asks for the client's scopes,
 * and once approved returns the person to the authorization request.
 */
export interface OAuthSignIn {
  clientId: string;
  redirectHost: string;
  scopes: Scope[];
  returnUrl: string;
  requester: SignInRequester;
}

/**
 * A Studio sign-in: an agent's email registration in all but its mail and its approval page, which
 * is Studio's (`{studioUrl}/api/sign-in/approve`, where Studio's pending cookie reaches it). Its
 * `returnUrl`, which no agent's registration has, is what marks it.
 */
export interface StudioSignIn {
  /** `{base_url}/studio`. */
  studioUrl: string;
  mail: (input: { to: string; approvalUrl: string; expiresAt: Date }) => MailMessage;
}

/** The approval page of a Studio sign-in, under Studio's path so that its pending cookie is sent. */
export function studioSignInApprovalUrl(studioUrl: string, approvalToken: string): string {
  return `${studioUrl}/api/sign-in/approve?token=${approvalToken}`;
}

/**
 * Starts a verified-email registration: stores it awaiting approval with digests of a claim token
 * (for the agent, or the browser's sign-in cookie for an OAuth sign-in) and an approval-link token
 * (for the person, by mail), then sends the mail. No account is created until the person approves.
 */
export async function registerWithEmail(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator; mailer: Mailer; authUrl: string },
  request: { email: string; agentDescription: string; oauth?: OAuthSignIn; studio?: StudioSignIn },
): Promise<AuthResult<EmailRegistration>> {
  if (!isDeliverableEmailAddress(request.email.trim())) {
    return refuse("invalid_request", "assertion must be the user's email address, like user@example.com.");
  }
  const email = normalizeEmail(request.email);
  const now = deps.clock.now();
  const registrationId = deps.ids("registration");
  const claimToken = generateToken("clm");
  const approvalToken = generateToken("apv");
  const claimTokenExpires = new Date(now.getTime() + claimTokenLifetimeMs);
  const scopes = request.oauth?.scopes ?? [...allScopes];
  const type = request.oauth === undefined ? "email-verification" : "oauth-client";
  await db.transaction(async (tx) => {
    await tx.insert(registrations).values({
      id: registrationId,
      type,
      clientId: request.oauth?.clientId,
      returnUrl:
        request.oauth?.returnUrl ?? (request.studio === undefined ? undefined : `${request.studio.studioUrl}/`),
      status: "pending",
      email,
      scopes,
      agentDescription: request.agentDescription,
      claimTokenHash: hashSecret(claimToken),
      claimTokenExpiresAt: claimTokenExpires,
      approvalTokenHash: hashSecret(approvalToken),
      createdAt: now,
    });
    await recordAuditEvent(tx, deps, {
      action: "registration.created",
      targetType: "registration",
      targetId: registrationId,
      data: {
        type,
        email,
        scopes,
        ...(request.oauth === undefined
          ? {}
          : { clientId: request.oauth.clientId, requester: request.oauth.requester }),
      },
    });
  });
  await deps.mailer.send(
    request.studio !== undefined
      ? request.studio.mail({
          to: email,
          approvalUrl: studioSignInApprovalUrl(request.studio.studioUrl, approvalToken),
          expiresAt: claimTokenExpires,
        })
      : request.oauth === undefined
        ? approvalMail({
            to: email,
            agentDescription: request.agentDescription,
            scopes,
            approvalUrl: approvalPageUrl(deps.authUrl, approvalToken),
            expiresAt: claimTokenExpires,
          })
        : signInApprovalMail({
            to: email,
            clientName: request.agentDescription,
            clientId: request.oauth.clientId,
            redirectHost: request.oauth.redirectHost,
            requester: request.oauth.requester,
            scopes,
            approvalUrl: signInApprovalPageUrl(deps.authUrl, approvalToken),
            cancelUrl: signInCancelPageUrl(deps.authUrl, approvalToken),
            expiresAt: claimTokenExpires,
          }),
  );
  return { ok: true, value: { registrationId, claimToken, claimTokenExpires, postClaimScopes: scopes } };
}
