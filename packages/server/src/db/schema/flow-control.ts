import { index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { ownedBy, timestamptz } from "./columns.ts";
import { projects } from "./projects.ts";

/**
 * Where each key of a workflow's `throttle` or `rateLimit` stands: `next_at` is when its next start
 * may come (the theoretical arrival time of the generic cell rate algorithm). One row per (project,
 * workflow, kind, key), moved by one upsert at enqueue; a row whose `next_at` has passed says no
 * more than no row, so retention may delete it.
 */
export const flowControlWindows = pgTable(
  "flow_control_windows",
  {
    projectId: ownedBy("project_id", () => projects.id),
    workflow: text("workflow").notNull(),
    kind: text("kind", { enum: ["throttle", "rateLimit"] }).notNull(),
    key: text("key").notNull(),
    nextAt: timestamptz("next_at").notNull(),
  },
  // Retention deletes the rows whose time has long passed, oldest first.
  (table) => [
    primaryKey({ columns: [table.projectId, table.workflow, table.kind, table.key] }),
    index().on(table.nextAt),
  ],
);
