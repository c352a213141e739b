import { sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { genericPlanRows } from "../db/generic-plan.ts";
import type { integrations } from "../db/schema/index.ts";
import type { ProjectIntegrationValues } from "../engine/attempts/project-integrations.ts";
import type { IntegrationValues } from "../engine/sandbox/protocol.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { openSecrets } from "./sealed-secrets.ts";
import { type SecretKeyring, undecryptableSecretMessage } from "./secret-sealing.ts";

type IntegrationRow = Pick<
  typeof integrations.$inferSelect,
  "projectId" | "name" | "kind" | "config" | "secrets" | "keyId"
>;

/** The opened integrations of a project, or a failure when one of them opens with no key of the ring. */
export async function readIntegrationValues(
  db: Database,
  keyring: SecretKeyring,
  projectId: string,
): Promise<ServiceResult<ProjectIntegrationValues>> {
  // Read at every attempt's start, between the engine's generic-plan statements: on the embedded
  // database a statement of the other plan mode there costs a switch of mode before and after it.
  const rows = await genericPlanRows<IntegrationRow>(
    db,
    sql`select project_id as "projectId", name, kind, config, secrets, key_id as "keyId"
      from integrations where project_id = ${projectId}`,
  );
  const values: Record<string, IntegrationValues> = {};
  const secrets: string[] = [];
  for (const row of rows) {
    const opened = openSecrets(keyring, row);
    if (opened === undefined) return fail.conflict(undecryptableSecretMessage);
    secrets.push(...Object.values(opened));
    values[row.name] = valuesOf(row.kind, row.config, opened);
  }
  return ok({ values, secrets });
}

function valuesOf(
  kind: "secret" | "http" | "smtp",
  config: Record<string, unknown>,
  secrets: Record<string, string>,
): IntegrationValues {
  switch (kind) {
    case "secret":
      return { kind, value: secrets.value ?? "" };
    case "http":
      return { kind, baseUrl: String(config.baseUrl), headers: secrets };
    case "smtp":
      return {
        kind,
        host: String(config.host),
        port: Number(config.port),
        user: String(config.user),
        password: secrets.password ?? "",
      };
  }
}
