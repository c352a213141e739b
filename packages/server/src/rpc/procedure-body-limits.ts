import { deploymentLimits } from "../deployments/create-deployment.ts";
import { defaultBodyLimitBytes } from "../http/body-limit.ts";

/**
 * `deployments.create` carries the whole bundle (up to 10 MiB) and the manifest (up to 1 MiB) as
 * JSON strings; 1 MiB more leaves room for the escaping of the bundle's quotes and newlines.
 */
export const deploymentUploadBodyLimitBytes =
  deploymentLimits.bundleBytes + deploymentLimits.manifestBytes + 1024 * 1024;

/** Procedures that need more than the platform's 1 MiB, by their dotted name (the OpenAPI operationId). */
const ownLimits: Readonly<Record<string, number>> = { "deployments.create": deploymentUploadBodyLimitBytes };

/** The largest request body the procedure named `procedure` (e.g. `projects.create`) accepts. */
export function procedureBodyLimitBytes(procedure: string): number {
  return ownLimits[procedure] ?? defaultBodyLimitBytes;
}

/**
 * The procedure a request path under `/rpc` or `/api` names: `/deployments/create` →
 * `deployments.create`. Procedures keep oRPC's default paths, which both protocols share.
 */
export function procedureOfPath(path: string): string {
  return path.replace(/^\/+/, "").replaceAll("/", ".");
}
