import type { integrations } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import type { SecretKeyring } from "./secret-sealing.ts";

/** An integration as stored: its secrets sealed, each with its masked hint. */
export type IntegrationRecord = typeof integrations.$inferSelect;

/** What the services that write secrets need: the audit's clock and ids, and the keys that seal. */
export interface IntegrationDependencies {
  clock: Clock;
  ids: IdGenerator;
  keyring: SecretKeyring;
}

/** The one wording of a missing integration; it names only what the caller sent. */
export function missingIntegrationMessage(name: string): string {
  return `The project has no integration "${name}".`;
}
