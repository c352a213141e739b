import type { ServiceResult } from "../../shared/service-result.ts";
import type { IntegrationValues } from "../sandbox/protocol.ts";

/** A project's integrations as an attempt gets them. */
export interface ProjectIntegrationValues {
  /** By integration name, as the sandbox child receives them. */
  values: Record<string, IntegrationValues>;
  /** Every secret value, for scrubbing what the attempt stores. */
  secrets: string[];
}

/**
 * Reads a project's integrations with their secrets opened (`integrations/read-integration-values.ts`),
 * at every attempt's start, so the attempt after a secret's rotation uses the new value; a failure
 * when a secret opens with no key of the ring.
 */
export type ReadIntegrations = (projectId: string) => Promise<ServiceResult<ProjectIntegrationValues>>;
