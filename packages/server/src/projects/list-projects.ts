import { and, getTableColumns, type SQL, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { epochMilliseconds } from "../db/epoch-milliseconds.ts";
import {
  cursorCondition,
  fetchKeysetPage,
  type KeysetPage,
  type KeysetSlice,
  matchingCount,
  type PageRequest,
  sliceKey,
  sliceOfSortedList,
  sliceOrder,
} from "../db/keyset-page.ts";
import { preparedStatementCache } from "../db/prepared-statements.ts";
import { projects } from "../db/schema/index.ts";
import { findProject, type ProjectSummary } from "./project-record.ts";

/** A slice row as `to_json` writes it: column names as keys, instants as epoch milliseconds. */
interface ProjectJson {
  id: string;
  workspace_id: string;
  name: string;
  created_by_account_id: string | null;
  retention_days: number | null;
  created_at: number;
  updated_at: number;
  matching_count: number;
}

interface SliceStatement {
  execute(values: { workspaceIds: string[]; cursor?: string; limit: number }): Promise<{ slice: ProjectJson[] }[]>;
}

const sliceStatements = preparedStatementCache<SliceStatement>();

/**
 * The slice comes back as one JSON array in one row rather than a row per project: on the embedded
 * PGlite every field of every row is decoded by its wire-protocol parser in JavaScript, which made
 * up a large share of a page's cost, whereas one JSON value is decoded by the native JSON.parse
 * (see docs/decisions/0012-api-benchmark-and-the-2x-target.md). The same SQL runs on PostgreSQL. Instants come as epoch
 * milliseconds, cheaper to format here than as text there.
 */
function sliceStatement(db: Database, slice: KeysetSlice): SliceStatement {
  const key = sliceKey(slice);
  return sliceStatements(db, key, () => {
    const inWorkspaces: SQL = sql`${projects.workspaceId} = any(${sql.placeholder("workspaceIds")})`;
    const rows = db
      .select({
        ...getTableColumns(projects),
        createdAt: epochMilliseconds(projects.createdAt).as("created_at"),
        updatedAt: epochMilliseconds(projects.updatedAt).as("updated_at"),
        matchingCount: matchingCount().as("matching_count"),
      })
      .from(projects)
      .where(and(inWorkspaces, cursorCondition(projects.id, slice, "placeholder")))
      .orderBy(sliceOrder(projects.id, slice))
      .limit(sql.placeholder("limit"))
      .as("slice");
    const aggregated = sql<
      ProjectJson[]
    >`coalesce(json_agg(${sql.identifier("slice")} order by ${sliceOrder(rows.id, slice)}), '[]')`;
    return db.select({ slice: aggregated }).from(rows).prepare(`list_projects_${key}`);
  });
}

function toProjectSummary(json: ProjectJson): ProjectSummary {
  return {
    id: json.id,
    workspaceId: json.workspace_id,
    name: json.name,
    createdByAccountId: json.created_by_account_id,
    retentionDays: json.retention_days,
    createdAt: new Date(json.created_at).toISOString(),
    updatedAt: new Date(json.updated_at).toISOString(),
  };
}

/**
 * One page of the projects of the given workspaces, oldest first; with `onlyProjectId` (a
 * project-scoped credential), of that one project if it is in them.
 */
export async function listProjects(
  db: Database,
  input: { workspaceIds: readonly string[]; onlyProjectId?: string | undefined; page: PageRequest },
): Promise<KeysetPage<ProjectSummary>> {
  if (input.workspaceIds.length === 0) {
    return { rows: [], hasNextPage: false, hasPreviousPage: false, totalCount: 0 };
  }
  const workspaceIds = [...input.workspaceIds];
  if (input.onlyProjectId !== undefined) {
    const project = await findProject(db, input.onlyProjectId);
    const visible: ProjectSummary[] =
      project === undefined || !workspaceIds.includes(project.workspaceId)
        ? []
        : [{ ...project, createdAt: project.createdAt.toISOString(), updatedAt: project.updatedAt.toISOString() }];
    return fetchKeysetPage({
      request: input.page,
      selectSlice: async (slice) =>
        sliceOfSortedList(visible, (row, key: string) => (row.id < key ? -1 : row.id > key ? 1 : 0), slice),
    });
  }
  return fetchKeysetPage({
    request: input.page,
    selectSlice: async (slice) => {
      const [result] = await sliceStatement(db, slice).execute({
        workspaceIds,
        limit: slice.limit,
        ...(slice.cursor === undefined ? {} : { cursor: slice.cursor.key }),
      });
      return (result?.slice ?? []).map((json) => ({ row: toProjectSummary(json), matchingCount: json.matching_count }));
    },
  });
}
