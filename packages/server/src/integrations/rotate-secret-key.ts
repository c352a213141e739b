import { and, asc, count, eq, gt, ne, or, type SQL } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { integrations } from "../db/schema/index.ts";
import { type ResealCounts, resealInBatches } from "./reseal-in-batches.ts";
import { resealSecrets } from "./sealed-secrets.ts";
import type { SecretKeyring } from "./secret-sealing.ts";

/** Rows re-sealed, and rows no key opens, so far in this run. */
export interface RotationProgress extends ResealCounts {
  /** Rows still sealed under another key than the current one, the unopenable ones included. */
  remaining: number;
}

export interface RotationOptions {
  batchSize: number;
  /** Called after each committed batch. */
  onBatch?: (progress: RotationProgress) => void;
}

/** Re-seals every integration whose secrets are under another key than the keyring's current one. */
export async function rotateIntegrationSecrets(
  db: Database,
  keyring: SecretKeyring,
  options: RotationOptions,
): Promise<RotationProgress> {
  const stale = ne(integrations.keyId, keyring.current.id);
  let remaining = await countWhere(db, stale);
  const counts = await resealInBatches(db, {
    selectBatch: (tx, after: { projectId: string; name: string } | undefined) =>
      tx
        .select()
        .from(integrations)
        .where(and(stale, after === undefined ? undefined : beyond(after)))
        .orderBy(asc(integrations.projectId), asc(integrations.name))
        .limit(options.batchSize)
        .for("update"),
    reseal: async (tx, row) => {
      const secrets = resealSecrets(keyring, row);
      if (secrets === undefined) return false;
      await tx
        .update(integrations)
        .set({ secrets, keyId: keyring.current.id })
        .where(and(eq(integrations.projectId, row.projectId), eq(integrations.name, row.name)));
      return true;
    },
    keyOf: (row) => ({ projectId: row.projectId, name: row.name }),
    afterBatch: async (countsSoFar) => {
      remaining = await countWhere(db, stale);
      options.onBatch?.({ ...countsSoFar, remaining });
    },
  });
  return { ...counts, remaining };
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
