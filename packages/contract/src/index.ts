import type { AnySchema, ContractProcedure, ErrorMap } from "@orpc/contract";
import { accessContract } from "./access.ts";
import { agentsContract } from "./agents.ts";
import { billingContract } from "./billing.ts";
import { deploymentsContract } from "./deployments.ts";
import { eventsContract } from "./events.ts";
import { integrationsContract } from "./integrations.ts";
import type { ProcedureMeta } from "./procedure.ts";
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
export * from "./events.ts";
export * from "./execution-events.ts";
export * from "./execution-status.ts";
export * from "./flow-control.ts";
export * from "./instants.ts";
export * from "./integrations.ts";
export * from "./json-path.ts";
export * from "./manifest.ts";
export * from "./pagination.ts";
export * from "./plain-text.ts";
export * from "./procedure.ts";
export * from "./projects.ts";
export * from "./quota-refusal.ts";
export * from "./resources.ts";
export * from "./run-options.ts";
export * from "./schedules.ts";
export * from "./scopes.ts";
export * from "./studio.ts";
export * from "./studio-session.ts";
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
  events: eventsContract,
  studio: studioContract,
};

export type Contract = typeof contract;

/** A procedure's name, `namespace.verb`: a table typed `Record<ProcedureName, …>` must name every one. */
export type ProcedureName = { [N in keyof Contract]: `${N}.${keyof Contract[N] & string}` }[keyof Contract];

/** One procedure of the contract, with its name, its path and its metadata. */
export interface ContractProcedureEntry {
  name: ProcedureName;
  path: readonly [namespace: string, verb: string];
  procedure: ContractProcedure<AnySchema, AnySchema, ErrorMap, ProcedureMeta>;
  meta: ProcedureMeta;
}

/** Every procedure of the contract, in its order. */
export function contractProcedureEntries(): ContractProcedureEntry[] {
  return Object.entries(contract).flatMap(([namespace, procedures]) =>
    Object.entries(procedures).map(([verb, procedure]: [string, ContractProcedureEntry["procedure"]]) => ({
      name: `${namespace}.${verb}` as ProcedureName,
      path: [namespace, verb] as const,
      procedure,
      meta: procedure["~orpc"].meta,
    })),
  );
}
