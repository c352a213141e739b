import { and, asc, eq, lte } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { alertDeliveries } from "../db/schema/index.ts";
import type { SecretKeyring } from "../integrations/secret-sealing.ts";
import type { Mailer } from "../mail/mailer.ts";
import type { Clock } from "../shared/clock.ts";
import type { GuardedFetch } from "../shared/guarded-fetch.ts";
import type { Logger } from "../shared/logger.ts";
import { type AlertPacing, retryAt } from "./alert-policy.ts";
import { noticeMail } from "./notice-mail.ts";
import { type PostOutcome, postNotice } from "./post-notice.ts";
import { readWebhookSecret } from "./webhook-secrets.ts";

/** Deliveries one claim takes; a claim that fills it is followed by another. */
const deliveriesPerClaim = 20;

export interface DeliveryDependencies {
  db: Database;
  clock: Clock;
  logger: Logger;
  mailer: Mailer;
  keyring: SecretKeyring;
  /** How webhooks are posted to: the address policy of requests made on a tenant's behalf. */
  outbound: GuardedFetch;
  pacing: AlertPacing;
}

type Delivery = typeof alertDeliveries.$inferSelect;

export interface DeliveryReport {
  sent: number;
  /** Tries that did not go through (to be tried again, or given up). */
  failed: number;
}

/**
 * Sends the deliveries whose try is due. Each is claimed first, in a short transaction that counts
 * the try and sets the next one's time (SKIP LOCKED keeps workers apart), so a worker that dies
 * while sending leaves it due again after the backoff; the send itself runs outside any transaction.
 */
export async function sendDueDeliveries(deps: DeliveryDependencies): Promise<DeliveryReport> {
  const report: DeliveryReport = { sent: 0, failed: 0 };
  for (;;) {
    const claimed = await claimDue(deps);
    const outcomes = await Promise.all(claimed.map((delivery) => deliver(deps, delivery)));
    for (const outcome of outcomes) {
      if (outcome.ok) report.sent += 1;
      else report.failed += 1;
    }
    if (claimed.length < deliveriesPerClaim) return report;
  }
}

async function claimDue(deps: DeliveryDependencies): Promise<Delivery[]> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const due = await tx
      .select()
      .from(alertDeliveries)
      .where(and(eq(alertDeliveries.status, "pending"), lte(alertDeliveries.nextAttemptAt, now)))
      .orderBy(asc(alertDeliveries.nextAttemptAt))
      .limit(deliveriesPerClaim)
      .for("update", { skipLocked: true });
    const claimed: Delivery[] = [];
    for (const delivery of due) {
      const attempts = delivery.attempts + 1;
      const [row] = await tx
        .update(alertDeliveries)
        .set({ attempts, nextAttemptAt: retryAt(deps.pacing, now, attempts) })
        .where(eq(alertDeliveries.id, delivery.id))
        .returning();
      if (row !== undefined) claimed.push(row);
    }
    return claimed;
  });
}

async function deliver(deps: DeliveryDependencies, delivery: Delivery): Promise<PostOutcome> {
  const outcome = await attempt(deps, delivery).catch(
    (error: unknown): PostOutcome => ({
      ok: false,
      error: error instanceof Error ? error.message : String(error),
      permanent: false,
    }),
  );
  const now = deps.clock.now();
  if (outcome.ok) {
    await deps.db
      .update(alertDeliveries)
      .set({ status: "sent", sentAt: now, nextAttemptAt: null, lastError: null })
      .where(eq(alertDeliveries.id, delivery.id));
    return outcome;
  }
  const givenUp = outcome.permanent || delivery.attempts >= deps.pacing.maxTries;
  await deps.db
    .update(alertDeliveries)
    .set({
      lastError: outcome.error,
      ...(givenUp ? { status: "failed" as const, nextAttemptAt: null } : {}),
    })
    .where(eq(alertDeliveries.id, delivery.id));
  // The target is left out: a webhook URL may itself be a credential (a secret path).
  deps.logger.warn(
    { alertDelivery: delivery.id, projectId: delivery.projectId, attempts: delivery.attempts, givenUp },
    `failure notice not delivered: ${outcome.error}`,
  );
  return outcome;
}

async function attempt(deps: DeliveryDependencies, delivery: Delivery): Promise<PostOutcome> {
  if (delivery.targetKind === "mail") {
    await deps.mailer.send(noticeMail(delivery.target, delivery.notice));
    return { ok: true };
  }
  const secret = await readWebhookSecret(deps.db, deps.keyring, {
    projectId: delivery.projectId,
    url: delivery.target,
  });
  if (secret === undefined) {
    return {
      ok: false,
      error: "the webhook's signing secret could not be opened; was WEFT_SECRET_KEY changed?",
      permanent: true,
    };
  }
  return postNotice(
    {
      url: delivery.target,
      body: JSON.stringify(delivery.notice),
      secret,
      deliveryId: delivery.id,
      now: deps.clock.now(),
    },
    deps.outbound,
  );
}
