import type { Database } from "../db/database.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { gatherNotices } from "./gather-notices.ts";
import { type DeliveryDependencies, type DeliveryReport, sendDueDeliveries } from "./send-deliveries.ts";

export interface DispatchReport extends DeliveryReport {
  /** Notices made from recorded failures in this pass. */
  notices: number;
}

export type AlertDispatchDependencies = DeliveryDependencies & { db: Database; ids: IdGenerator };

/** One pass of the alert dispatcher: recorded failures become notices, then due deliveries are sent. */
export async function dispatchAlerts(deps: AlertDispatchDependencies): Promise<DispatchReport> {
  const notices = await gatherNotices(deps.db, deps);
  const delivered = await sendDueDeliveries(deps);
  return { notices, ...delivered };
}
