import { accessContract } from "./access.ts";
import { agentsContract } from "./agents.ts";
import { billingContract } from "./billing.ts";
import { deploymentsContract } from "./deployments.ts";
import { integrationsContract } from "./integrations.ts";
import { projectsContract } from "./projects.ts";
import { resourcesContract } from "./resources.ts";
import { schedulesContract } from "./schedules.ts";
import { studioContract } from "./studio.ts";
import { tracesContract } from "./traces.ts";
import { workflowsContract } from "./workflows.ts";

export * from "./access.ts";
export * from "./agents.ts";
export * from "./alerts.ts";
export * from "./billing.ts";
export * from "./cron-schedule.ts";
export * from "./deployments.ts";
export * from "./duration.ts";
export * from "./error-location.ts";
export * from "./errors.ts";
export * from "./execution-events.ts";
export * from "./execution-status.ts";
export * from "./instants.ts";
export * from "./integrations.ts";
export * from "./manifest.ts";
export * from "./pagination.ts";
export * from "./plain-text.ts";
export * from "./projects.ts";
export * from "./quota-refusal.ts";
export * from "./resources.ts";
export * from "./schedules.ts";
export * from "./studio.ts";
export * from "./traces.ts";
export * from "./webhook-input.ts";
export * from "./workflows.ts";

/**
 * The whole RPC API: one entry per namespace (docs/rpc-namespaces.md), each defined in `./<namespace>.ts`. A
 * procedure is reached at `POST {base_url}/rpc/<namespace>/<verb>` with body `{"json": <input>}`.
 */
export const contract = {
  projects: projectsContract,
  deployments: deploymentsContract,
  workflows: workflowsContract,
  traces: tracesContract,
  resources: resourcesContract,
  agents: agentsContract,
  access: accessContract,
  schedules: schedulesContract,
  integrations: integrationsContract,
  billing: billingContract,
  studio: studioContract,
};

export type Contract = typeof contract;
