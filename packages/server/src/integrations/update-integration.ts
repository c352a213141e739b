import type { UpdateIntegrationInput } from "@weft/contract";
import { and, eq } from "drizzle-orm";
import type { ProjectChange } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { integrations } from "../db/schema/index.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { configIssues, secretNameIssues } from "./integration-kinds.ts";
import {
  type IntegrationDependencies,
  type IntegrationRecord,
  missingIntegrationMessage,
  recordIntegrationEvent,
} from "./integration-record.ts";
import { resealSecrets, sealSecrets } from "./sealed-secrets.ts";
import { undecryptableSecretMessage } from "./secret-sealing.ts";

export interface UpdateIntegrationRequest extends ProjectChange {
  change: Omit<UpdateIntegrationInput, "projectId">;
}

/**
 * Changes an integration: config fields given replace theirs, secrets given are sealed anew, a
 * secret given as `null` is removed, and the rest keep their values. A row sealed under the previous
 * key is re-sealed whole under the current one, so every secret of a row shares one key.
 */
export async function updateIntegration(
  db: Database,
  deps: IntegrationDependencies,
  request: UpdateIntegrationRequest,
): Promise<ServiceResult<IntegrationRecord>> {
  const { name } = request.change;
  return db.transaction(async (tx) => {
    const where = and(eq(integrations.projectId, request.projectId), eq(integrations.name, name));
    const [before] = await tx.select().from(integrations).where(where).for("update");
    if (before === undefined) return fail.notFound({ message: missingIntegrationMessage(name) });
    const config = { ...before.config, ...request.change.config };
    const given = Object.entries(request.change.secrets ?? {});
    const removed = given.filter(([, value]) => value === null).map(([secret]) => secret);
    const set = Object.fromEntries(given.filter((entry): entry is [string, string] => entry[1] !== null));
    const kept = Object.keys(before.secrets).filter((secret) => !removed.includes(secret) && !(secret in set));
    const issues = [
      ...configIssues(before.kind, config),
      ...secretNameIssues(before.kind, [...kept, ...Object.keys(set)]),
      ...removed
        .filter((secret) => !(secret in before.secrets))
        .map((secret) => ({ path: `secrets.${secret}`, message: "The integration has no such secret to remove." })),
    ];
    if (issues.length > 0) return fail.invalid("The change does not fit the integration's kind", issues);
    const resealed = resealSecrets(deps.keyring, before);
    if (resealed === undefined) return fail.conflict(undecryptableSecretMessage);
    const now = deps.clock.now();
    const secrets = {
      ...Object.fromEntries(Object.entries(resealed).filter(([secret]) => kept.includes(secret))),
      ...sealSecrets(deps.keyring.current, { projectId: request.projectId, integration: name }, set, {
        at: now,
        actor: request.actor,
      }),
    };
    const [after] = await tx
      .update(integrations)
      .set({ config, secrets, keyId: deps.keyring.current.id, updatedAt: now })
      .where(where)
      .returning();
    if (after === undefined) throw new Error("the integration update returned no row");
    await recordIntegrationEvent(tx, deps, {
      ...request,
      action: "integration.updated",
      name,
      data: {
        kind: before.kind,
        configFields: Object.keys(request.change.config ?? {}),
        secretsSet: Object.keys(set),
        secretsRemoved: removed,
      },
    });
    return ok(after);
  });
}
