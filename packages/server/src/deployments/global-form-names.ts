import { and, eq, inArray, ne, notInArray } from "drizzle-orm";
import type { Database, Transaction } from "../db/database.ts";
import { globalFormNames } from "../db/schema/index.ts";
import type { StoredForm } from "../db/schema/stored-manifest.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";

/**
 * Makes the project's instance-wide form names those of `forms` (its deployment about to become
 * active): names it no longer claims are released, new ones taken first come first served. A name
 * another project holds is refused, naming the form, and the caller rolls its transaction back.
 * Concurrent claims of one name are serialised by its primary key: the second waits for the first
 * to commit and then sees it held.
 */
export async function claimGlobalFormNames(
  tx: Transaction,
  projectId: string,
  forms: readonly StoredForm[],
  now: Date,
): Promise<ServiceResult<void>> {
  const wanted = forms.filter((form) => form.globalName === true).map((form) => form.name);
  await tx
    .delete(globalFormNames)
    .where(
      and(
        eq(globalFormNames.projectId, projectId),
        wanted.length === 0 ? undefined : notInArray(globalFormNames.name, wanted),
      ),
    );
  if (wanted.length === 0) return ok(undefined);
  await tx
    .insert(globalFormNames)
    .values(wanted.map((name) => ({ name, projectId, claimedAt: now })))
    .onConflictDoNothing();
  const held = await tx
    .select({ name: globalFormNames.name })
    .from(globalFormNames)
    .where(and(inArray(globalFormNames.name, wanted), ne(globalFormNames.projectId, projectId)));
  if (held.length === 0) return ok(undefined);
  const heldNames = new Set(held.map((row) => row.name));
  return fail.invalid(
    "a form name is claimed instance-wide by another project",
    forms.flatMap((form, index) =>
      form.globalName === true && heldNames.has(form.name)
        ? [
            {
              path: `forms.${index}.globalName`,
              message: `the name "${form.name}" is already claimed instance-wide by another project: remove globalName (submissions then need ?projectId=) or choose another name`,
            },
          ]
        : [],
    ),
  );
}

/** The project whose active deployment claims `formName` instance-wide, if any. */
export async function projectClaimingFormName(db: Database, formName: string): Promise<string | undefined> {
  const [row] = await db
    .select({ projectId: globalFormNames.projectId })
    .from(globalFormNames)
    .where(eq(globalFormNames.name, formName));
  return row?.projectId;
}
