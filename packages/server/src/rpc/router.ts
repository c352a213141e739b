import { accessRouter } from "./access/index.ts";
import { agentsRouter } from "./agents/index.ts";
import { billingRouter } from "./billing/index.ts";
import { deploymentsRouter } from "./deployments/index.ts";
import { eventsRouter } from "./events/index.ts";
import { rpc } from "./implementer.ts";
import { integrationsRouter } from "./integrations/index.ts";
import { projectsRouter } from "./projects/index.ts";
import { resourcesRouter } from "./resources/index.ts";
import { schedulesRouter } from "./schedules/index.ts";
import { studioRouter } from "./studio/index.ts";
import { tracesRouter } from "./traces/index.ts";
import { workflowsRouter } from "./workflows/index.ts";

/** Every namespace of the contract, implemented; one entry per namespace folder. */
export const router = rpc.router({
  projects: projectsRouter,
  deployments: deploymentsRouter,
  workflows: workflowsRouter,
  traces: tracesRouter,
  resources: resourcesRouter,
  agents: agentsRouter,
  access: accessRouter,
  schedules: schedulesRouter,
  integrations: integrationsRouter,
  billing: billingRouter,
  events: eventsRouter,
  studio: studioRouter,
});

export type Router = typeof router;
