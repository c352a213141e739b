import { sql } from "drizzle-orm";

/** The comment that opens a statement written to be planned once for any values (`genericPlan`). */
export const genericPlanMarker = "/* generic plan */";

/**
 * Opens a statement that the embedded database plans once and keeps planning once for any values,
 * even where PostgreSQL would plan it again at every execution. Once the engine's tables had grown
 * and been analyzed, PostgreSQL judged the generic plans of the claim, the groups read and the
 * attempt's end costlier than plans made for the values, and planned them at every execution
 * (docs/decisions.md). Only for statements whose plan does not depend on their values: statuses
 * written as literals, so a partial index is usable whatever the values. On PostgreSQL it is a comment.
 */
export const genericPlan = sql.raw(`${genericPlanMarker} `);
