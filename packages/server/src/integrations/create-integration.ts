import type { CreateIntegrationInput } from "@weft/contract";
import type { ProjectChange } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { integrations } from "../db/schema/index.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { type IntegrationDependencies, type IntegrationRecord, recordIntegrationEvent } from "./integration-record.ts";
import { sealSecrets } from "./sealed-secrets.ts";

export interface CreateIntegrationRequest extends ProjectChange {
  integration: Omit<CreateIntegrationInput, "projectId">;
}

/** Stores a new integration with its secrets sealed; a name the project already uses is refused. */
export async function createIntegration(
  db: Database,
  deps: IntegrationDependencies,
  request: CreateIntegrationRequest,
): Promise<ServiceResult<IntegrationRecord>> {
  const { name, kind, config, secrets } = request.integration;
  const now = deps.clock.now();
  return db.transaction(async (tx) => {
    const [created] = await tx
      .insert(integrations)
      .values({
        projectId: request.projectId,
        name,
        kind,
        config,
        secrets: sealSecrets(
          deps.keyring.current,
          { projectId: request.projectId, integration: name },
          secrets as Record<string, string>,
          { at: now, actor: request.actor },
        ),
        keyId: deps.keyring.current.id,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning();
    if (created === undefined) {
      const message = `The project already has an integration named "${name}".`;
      return fail.invalid(message, [{ path: "name", message }]);
    }
    await recordIntegrationEvent(tx, deps, {
      ...request,
      action: "integration.created",
      name,
      data: { kind, secretNames: Object.keys(secrets) },
    });
    return ok(created);
  });
}
