import type { PaginationInput } from "@weft/contract";
import type { Database } from "../db/database.ts";
import type { KeysetPage, ProjectRowsRequest } from "../db/keyset-page.ts";
import type { AuthenticatedContext } from "./context.ts";
import { type PageEnvelope, stringKeyCursor, toPageEnvelope, toPageRequest } from "./pagination.ts";
import { requireProjectAccess } from "./project-access.ts";

/** A list of a project's rows by their name, unique within the project (its integrations, its schedules). */
export interface ProjectListByName<TRow extends { name: string }, TResult> {
  /** The field the list's opaque cursors hold the name under. */
  cursorField: string;
  read(db: Database, request: ProjectRowsRequest): Promise<KeysetPage<TRow>>;
  toResult(row: TRow): TResult;
}

/**
 * Answers a list procedure of a project's rows by name: a cursor that is not the list's is a
 * BAD_REQUEST before the project is looked at, and a project the caller cannot see is NOT_FOUND.
 */
export async function pageOfProjectRowsByName<TRow extends { name: string }, TResult>(
  context: AuthenticatedContext,
  input: { projectId: string; pagination?: PaginationInput | undefined },
  list: ProjectListByName<TRow, TResult>,
): Promise<PageEnvelope<TResult>> {
  const cursor = stringKeyCursor(list.cursorField);
  const page = toPageRequest(input.pagination, cursor);
  const project = await requireProjectAccess(context, input.projectId, { access: "read" });
  const rows = await list.read(context.platform.database.db, { projectId: project.id, page });
  return toPageEnvelope(rows, list.toResult, (row) => cursor.encode(row.name));
}
