import type { IntegrationDependencies } from "../../integrations/integration-record.ts";
import { integrationKeyring } from "../../integrations/secret-sealing.ts";
import type { PlatformContext } from "../../platform-context.ts";

/** The clock, ids and keys the integration services take, from the platform a procedure runs in. */
export function integrationDependencies(platform: PlatformContext): IntegrationDependencies {
  return { clock: platform.clock, ids: platform.ids, keyring: integrationKeyring(platform.config) };
}
