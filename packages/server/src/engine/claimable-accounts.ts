/**
 * Which accounts' workspaces may hold executions this worker could claim, as far as it knows. A
 * worker's share holds per account (the one that pays for the workspace), so the accounts are what
 * is at its share. A claim looks for rows of the accounts below their share by reading the queue in
 * due order, past every row of the accounts at their share: with one busy account and a backlog, a
 * claim that finds nothing reads the whole backlog. Once a claim stopped short, only the accounts
 * then at their share (and those announced since) can hold claimable rows, so a claim is worth
 * making only when one of them is below its share. Announcements name accounts, not workspaces:
 * named by a workspace this worker never ran, an account at its share would cost a claim each time.
 * A sleep, retry or wait this worker let go of is announced when it falls due (`due-wakeups.ts`);
 * what this cannot see (a lease that lapses, a requeue by another process, rows another worker had
 * locked when the claim passed them) is found by the poll, which forgets what is known.
 */
export interface ClaimableAccounts {
  /** Nothing is known: every claim is worth making (at start and at each poll). */
  forget(): void;
  /** A claim begins: what is announced or forgotten while it runs outlives what it finds. */
  claiming(): void;
  /**
   * The claim stopped short of its limit: it left nothing claimable but, perhaps, executions of the
   * `atShare` accounts, which it skipped at their share (any superset of them will do).
   */
  leftNone(atShare: Iterable<string>): void;
  /** Executions of these accounts may have become claimable; `undefined` when the announcement did not say whose. */
  announced(accountIds: readonly string[] | undefined): void;
  /** Whether a claim may find something, given which accounts are at their share now. */
  worthClaiming(atShare: ReadonlySet<string>): boolean;
}

export function createClaimableAccounts(): ClaimableAccounts {
  let known: Set<string> | undefined;
  /** Announced since the last claim began; `undefined` once something was announced unsaid or forgotten. */
  let sinceClaim: Set<string> | undefined = new Set();
  const forget = () => {
    known = undefined;
    sinceClaim = undefined;
  };
  return {
    forget,
    claiming: () => {
      sinceClaim = new Set();
    },
    leftNone: (atShare) => {
      known = sinceClaim === undefined ? undefined : new Set([...atShare, ...sinceClaim]);
    },
    announced: (accountIds) => {
      if (accountIds === undefined) {
        forget();
        return;
      }
      for (const id of accountIds) {
        known?.add(id);
        sinceClaim?.add(id);
      }
    },
    worthClaiming: (atShare) => {
      if (known === undefined) return true;
      for (const id of known) if (!atShare.has(id)) return true;
      return false;
    },
  };
}

/** The payload of a NOTIFY on the executions channel: the accounts' ids, comma-separated, or empty when unsaid. */
export function announcedAccounts(payload: string): string[] | undefined {
  return payload === "" ? undefined : payload.split(",");
}

/** Past this many projects in one batch the announcement names no account: a NOTIFY payload must stay under 8 000 bytes. */
const maxAnnouncedProjects = 100;

/** The projects whose accounts a batch's announcement names, comma-separated; empty past `maxAnnouncedProjects`. */
export function announcedProjects(projectIds: readonly string[]): string {
  const distinct = [...new Set(projectIds)];
  return distinct.length > maxAnnouncedProjects ? "" : distinct.join(",");
}
