import { and, eq, lte, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { alertDeliveries, alertFailures } from "../db/schema/index.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { gatherNotices } from "./gather-notices.ts";
import { type DeliveryDependencies, type DeliveryReport, sendDueDeliveries } from "./send-deliveries.ts";

export interface DispatchReport extends DeliveryReport {
  /** Notices made from recorded failures in this pass. */
  notices: number;
}

export type AlertDispatchDependencies = DeliveryDependencies & { db: Database; ids: IdGenerator };

/**
 * One pass of the alert dispatcher: recorded failures become notices, then due deliveries are sent.
 * Every worker runs one each poll, so a pass with nothing to do is one read outside any transaction.
 */
export async function dispatchAlerts(deps: AlertDispatchDependencies): Promise<DispatchReport> {
  const now = deps.clock.now();
  const [work] = await deps.db
    .select({
      failures: sql<boolean>`exists (${deps.db.select({ one: sql`1` }).from(alertFailures)})`,
      deliveries: sql<boolean>`exists (${deps.db
        .select({ one: sql`1` })
        .from(alertDeliveries)
        .where(and(eq(alertDeliveries.status, "pending"), lte(alertDeliveries.nextAttemptAt, now)))})`,
    })
    .from(sql`(select 1) as probe`);
  const notices = work?.failures === true ? await gatherNotices(deps.db, deps) : 0;
  const delivered = notices > 0 || work?.deliveries === true ? await sendDueDeliveries(deps) : { sent: 0, failed: 0 };
  return { notices, ...delivered };
}
