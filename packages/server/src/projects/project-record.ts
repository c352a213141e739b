import { eq, sql } from "drizzle-orm";
import type { Database, Transaction } from "../db/database.ts";
import { preparedStatementCache } from "../db/prepared-statements.ts";
import { projects } from "../db/schema/index.ts";

export type ProjectRecord = typeof projects.$inferSelect;

/** A project as a list reads it: its instants already ISO 8601 text (UTC, milliseconds). */
export type ProjectSummary = Omit<ProjectRecord, "createdAt" | "updatedAt"> & { createdAt: string; updatedAt: string };

/** Who made a change, for the audit trail. */
export interface ProjectActor {
  accountId: string;
  credentialId: string | undefined;
}

/** The refusal of a project name already used in the workspace (names are unique per workspace). */
export function nameTakenMessage(name: string): string {
  return `A project named "${name}" already exists in this workspace.`;
}

interface FindProjectStatement {
  execute(values: { projectId: string }): Promise<ProjectRecord[]>;
}

const findStatements = preparedStatementCache<FindProjectStatement>();

/** The project with this id, if any: every project-scoped procedure's first query, hence prepared. */
export async function findProject(db: Database | Transaction, projectId: string): Promise<ProjectRecord | undefined> {
  const statement = findStatements(db, "find", () =>
    db
      .select()
      .from(projects)
      .where(eq(projects.id, sql.placeholder("projectId")))
      .prepare("find_project"),
  );
  const [row] = await statement.execute({ projectId });
  return row;
}
