import { eq } from "drizzle-orm";
import { recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database, Transaction } from "../db/database.ts";
import { accounts, memberships, workspaces } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";

export interface AccountWithWorkspace {
  accountId: string;
  email: string;
  personalWorkspaceId: string;
  created: boolean;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The account of an email and its personal workspace, if the email has an account. */
export async function findAccountByEmail(
  db: Database | Transaction,
  email: string,
): Promise<{ accountId: string; personalWorkspaceId: string } | undefined> {
  const [row] = await db
    .select({ accountId: accounts.id, personalWorkspaceId: workspaces.id })
    .from(accounts)
    .innerJoin(workspaces, eq(workspaces.personalAccountId, accounts.id))
    .where(eq(accounts.email, normalizeEmail(email)));
  return row;
}

/**
 * Returns the account of a verified email, creating it with a personal workspace (owner role) when
 * the email is new. Runs in the caller's transaction; concurrent first registrations of one email
 * resolve to the same account through the unique index on `accounts.email`.
 */
export async function findOrCreateAccount(
  tx: Transaction,
  deps: { clock: Clock; ids: IdGenerator },
  verifiedEmail: string,
): Promise<AccountWithWorkspace> {
  const email = normalizeEmail(verifiedEmail);
  const now = deps.clock.now();
  const accountId = deps.ids("account");
  const inserted = await tx
    .insert(accounts)
    .values({ id: accountId, email, createdAt: now })
    .onConflictDoNothing({ target: accounts.email })
    .returning({ id: accounts.id });
  if (inserted.length === 0) {
    const [existing] = await tx
      .select({ accountId: accounts.id, workspaceId: workspaces.id })
      .from(accounts)
      .innerJoin(workspaces, eq(workspaces.personalAccountId, accounts.id))
      .where(eq(accounts.email, email));
    if (existing === undefined) throw new Error(`account for ${email} has no personal workspace`);
    return { accountId: existing.accountId, email, personalWorkspaceId: existing.workspaceId, created: false };
  }
  const workspaceId = deps.ids("workspace");
  await tx.insert(workspaces).values({
    id: workspaceId,
    name: email,
    personalAccountId: accountId,
    billingAccountId: accountId,
    createdAt: now,
  });
  await tx.insert(memberships).values({ workspaceId, accountId, role: "owner", createdAt: now });
  await recordAuditEvent(tx, deps, {
    action: "account.created",
    targetType: "account",
    targetId: accountId,
    workspaceId,
    actor: { accountId },
  });
  return { accountId, email, personalWorkspaceId: workspaceId, created: true };
}
