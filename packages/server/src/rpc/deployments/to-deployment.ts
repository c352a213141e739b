import type { Deployment } from "@weft/contract";
import type { DeploymentSummary } from "../../deployments/deployment-summary.ts";

/** The wire shape of a deployment (never its bundle, never a secret). */
export function toDeployment(summary: DeploymentSummary): Deployment {
  return { ...summary, createdAt: summary.createdAt.toISOString() };
}
