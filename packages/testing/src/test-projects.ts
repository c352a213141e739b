import type { Clock, Database, IdGenerator } from "@weft/server/internals";
import { findOrCreateAccount, projects } from "@weft/server/internals";

/** Owner of the projects that service-level tests name by id without going through the API. */
const testProjectOwner = "project-owner@tests.weft.invalid";

/**
 * Makes sure a project row with this id exists, so tests and benchmarks of the engine and of
 * deployments can name their projects (`prj_engine`, …) while the foreign keys hold. The project
 * belongs to the personal workspace of `ownerEmail` (one shared test owner by default).
 */
export async function ensureTestProject(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator },
  projectId: string,
  ownerEmail: string = testProjectOwner,
): Promise<void> {
  await db.transaction(async (tx) => {
    const owner = await findOrCreateAccount(tx, deps, ownerEmail);
    const now = deps.clock.now();
    await tx
      .insert(projects)
      .values({
        id: projectId,
        workspaceId: owner.personalWorkspaceId,
        name: projectId,
        createdByAccountId: owner.accountId,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing();
  });
}
