import { and, eq, inArray } from "drizzle-orm";
import { recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database, Transaction } from "../db/database.ts";
import { type RegistrationStatus, type RegistrationType, registrations } from "../db/schema/index.ts";
import { findAccountByEmail, findOrCreateAccount } from "../identity/accounts.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { hashSecret, secretMatchesHash } from "../shared/secrets.ts";
import { claimCodeDigest, claimCodeLifetimeMs, generateClaimCode } from "./claim-code.ts";

export interface PendingRegistrationView {
  registrationId: string;
  type: RegistrationType;
  /** Where an OAuth sign-in sends the person once approved: back to the authorization request. */
  returnUrl: string | null;
  email: string;
  scopes: string[];
  agentDescription: string;
  status: RegistrationStatus;
  linkExpiresAt: Date;
  /** True when the link can no longer approve or deny (30 minutes after registration). */
  expired: boolean;
}

/**
 * Whether a registration is a Studio sign-in: an email registration with somewhere to return to,
 * which only Studio's sign-in sets (`registerWithEmail`'s `studio`).
 */
export function isStudioSignIn(registration: Pick<PendingRegistrationView, "type" | "returnUrl">): boolean {
  return registration.type === "email-verification" && registration.returnUrl !== null;
}

export type Decision = "approve" | "deny" | "revoke";

/** The decision a form's button names; undefined for any other value. */
export function decisionOf(value: string): Decision | undefined {
  return value === "approve" || value === "deny" || value === "revoke" ? value : undefined;
}

export type DecisionOutcome =
  | { kind: "approved"; code: string; codeExpiresAt: Date; registration: PendingRegistrationView }
  /** An OAuth or Studio sign-in approved in the browser that started it: signed in there, no code to type. */
  | { kind: "signed-in"; registration: PendingRegistrationView }
  | { kind: "denied" | "revoked"; registration: PendingRegistrationView }
  /** The decision does not apply to the registration as it stands (expired, decided, claimed). */
  | { kind: "refused"; registration: PendingRegistrationView };

/** `secretKey` keys the digest of claim codes. */
type Deps = { clock: Clock; ids: IdGenerator; secretKey: Buffer };

/** A registration as its approval link finds it, with the digest of its claim token (the sign-in cookie). */
interface LoadedRegistration {
  view: PendingRegistrationView;
  claimTokenHash: string | null;
}

async function load(
  executor: Database | Transaction,
  clock: Clock,
  approvalToken: string,
  options: { forUpdate: boolean },
): Promise<LoadedRegistration | undefined> {
  const query = executor
    .select()
    .from(registrations)
    .where(eq(registrations.approvalTokenHash, hashSecret(approvalToken)));
  const [row] = options.forUpdate ? await query.for("update") : await query;
  if (row === undefined || row.claimTokenExpiresAt === null) return undefined;
  const view: PendingRegistrationView = {
    registrationId: row.id,
    type: row.type,
    returnUrl: row.returnUrl,
    email: row.email,
    scopes: row.scopes,
    agentDescription: row.agentDescription ?? "an unnamed agent",
    status: row.status,
    linkExpiresAt: row.claimTokenExpiresAt,
    expired: clock.now().getTime() >= row.claimTokenExpiresAt.getTime(),
  };
  return { view, claimTokenHash: row.claimTokenHash };
}

/** What the approval link shows; changes nothing. Undefined for a link that names no registration. */
export async function viewRegistrationByApprovalToken(
  db: Database,
  clock: Clock,
  approvalToken: string,
): Promise<PendingRegistrationView | undefined> {
  return (await load(db, clock, approvalToken, { forUpdate: false }))?.view;
}

/**
 * Approval issues the 6-digit code the claimant must present: the agent, or for an OAuth sign-in
 * the browser that started it. That browser, when it is the one approving, has just shown its
 * cookie, so it is signed in at once and no code is issued.
 */
async function approve(
  tx: Transaction,
  deps: Deps,
  registration: PendingRegistrationView,
  inStartingBrowser: boolean,
): Promise<DecisionOutcome> {
  const account = await findOrCreateAccount(tx, deps, registration.email);
  const code = inStartingBrowser ? undefined : generateClaimCode();
  const now = deps.clock.now();
  const codeExpiresAt = new Date(now.getTime() + claimCodeLifetimeMs);
  await tx
    .update(registrations)
    .set({
      status: "approved",
      accountId: account.accountId,
      codeHash: code === undefined ? null : claimCodeDigest(deps.secretKey, registration.registrationId, code),
      codeExpiresAt: code === undefined ? null : codeExpiresAt,
      codeAttempts: 0,
      decidedAt: now,
    })
    .where(eq(registrations.id, registration.registrationId));
  await recordAuditEvent(tx, deps, {
    action: "registration.approved",
    targetType: "registration",
    targetId: registration.registrationId,
    workspaceId: account.personalWorkspaceId,
    actor: { accountId: account.accountId },
    ...(registration.type === "oauth-client" || isStudioSignIn(registration) ? { data: { inStartingBrowser } } : {}),
  });
  const approved = { ...registration, status: "approved" as const };
  if (code === undefined) return { kind: "signed-in", registration: approved };
  return { kind: "approved", code, codeExpiresAt, registration: approved };
}

async function close(
  tx: Transaction,
  deps: Deps,
  registration: PendingRegistrationView,
  to: "denied" | "revoked",
): Promise<DecisionOutcome> {
  await tx
    .update(registrations)
    .set({ status: to, decidedAt: deps.clock.now(), codeHash: null })
    .where(
      and(eq(registrations.id, registration.registrationId), inArray(registrations.status, ["pending", "approved"])),
    );
  // The person decides from the mailed link: they are known by that email, an account or not yet.
  const account = await findAccountByEmail(tx, registration.email);
  await recordAuditEvent(tx, deps, {
    action: to === "denied" ? "registration.denied" : "registration.revoked",
    targetType: "registration",
    targetId: registration.registrationId,
    workspaceId: account?.personalWorkspaceId,
    actor: { accountId: account?.accountId, email: registration.email },
    data: { email: registration.email, agent: registration.agentDescription },
  });
  return { kind: to, registration: { ...registration, status: to } };
}

/**
 * Applies the person's decision from the approval page. Approve and deny need a registration still
 * awaiting approval within its 30 minutes; revoke withdraws one awaiting approval or approved but
 * not yet claimed. `signInCookie` is the OAuth or Studio sign-in cookie the deciding browser sent, if any.
 * Undefined for a link that names no registration.
 */
export function decideRegistration(
  db: Database,
  deps: Deps,
  approvalToken: string,
  decision: Decision,
  signInCookie?: string,
): Promise<DecisionOutcome | undefined> {
  return db.transaction(async (tx) => {
    const loaded = await load(tx, deps.clock, approvalToken, { forUpdate: true });
    if (loaded === undefined) return undefined;
    const registration = loaded.view;
    if (decision === "revoke") {
      if (registration.status !== "pending" && registration.status !== "approved") {
        return { kind: "refused", registration };
      }
      return close(tx, deps, registration, "revoked");
    }
    if (registration.status !== "pending" || registration.expired) return { kind: "refused", registration };
    if (decision === "deny") return close(tx, deps, registration, "denied");
    const inStartingBrowser =
      (registration.type === "oauth-client" || isStudioSignIn(registration)) &&
      signInCookie !== undefined &&
      loaded.claimTokenHash !== null &&
      secretMatchesHash(signInCookie, loaded.claimTokenHash);
    return approve(tx, deps, registration, inStartingBrowser);
  });
}
