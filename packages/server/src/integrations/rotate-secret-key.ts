import { and, asc, count, eq, gt, ne, or, type SQL } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { integrations } from "../db/schema/index.ts";
import { resealSecrets } from "./sealed-secrets.ts";
import type { SecretKeyring } from "./secret-sealing.ts";

export interface RotationProgress {
  /** Rows re-sealed under the current key so far, in this run. */
  resealed: number;
  /** Rows no key of the ring opens (left as they are), so far in this run. */
  unopenable: number;
  /** Rows still sealed under another key than the current one, these included. */
  remaining: number;
}

export interface RotationOptions {
  batchSize: number;
  /** Called after each committed batch. */
  onBatch?: (progress: RotationProgress) => void;
}

/**
 * Re-seals every integration whose secrets are under another key than the keyring's current one,
 * in batches of one transaction each. A run that stops midway leaves whole rows done or untouched,
 * so running it again resumes where it stopped; a row no key opens is counted and left as it is.
 */
export async function rotateIntegrationSecrets(
  db: Database,
  keyring: SecretKeyring,
  options: RotationOptions,
): Promise<RotationProgress> {
  const stale = ne(integrations.keyId, keyring.current.id);
  const progress: RotationProgress = { resealed: 0, unopenable: 0, remaining: await countWhere(db, stale) };
  let after: { projectId: string; name: string } | undefined;
  for (;;) {
    const batch = await db.transaction(async (tx) => {
      const rows = await tx
        .select()
        .from(integrations)
        .where(and(stale, after === undefined ? undefined : beyond(after)))
        .orderBy(asc(integrations.projectId), asc(integrations.name))
        .limit(options.batchSize)
        .for("update");
      let resealed = 0;
      for (const row of rows) {
        const secrets = resealSecrets(keyring, row);
        if (secrets === undefined) continue;
        await tx
          .update(integrations)
          .set({ secrets, keyId: keyring.current.id })
          .where(and(eq(integrations.projectId, row.projectId), eq(integrations.name, row.name)));
        resealed += 1;
      }
      return { rows, resealed };
    });
    const last = batch.rows.at(-1);
    if (last === undefined) return progress;
    after = { projectId: last.projectId, name: last.name };
    progress.resealed += batch.resealed;
    progress.unopenable += batch.rows.length - batch.resealed;
    progress.remaining = await countWhere(db, stale);
    options.onBatch?.({ ...progress });
  }
}

/** Rows after `(projectId, name)` in the order batches walk. */
function beyond(after: { projectId: string; name: string }): SQL | undefined {
  return or(
    gt(integrations.projectId, after.projectId),
    and(eq(integrations.projectId, after.projectId), gt(integrations.name, after.name)),
  );
}

async function countWhere(db: Database, condition: SQL): Promise<number> {
  const [row] = await db.select({ value: count() }).from(integrations).where(condition);
  return row?.value ?? 0;
}
