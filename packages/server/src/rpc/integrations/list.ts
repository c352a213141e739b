import { listIntegrations } from "../../integrations/read-integrations.ts";
import { rpc } from "../implementer.ts";
import { pageOfProjectRowsByName } from "../project-rows-by-name.ts";
import { toIntegration } from "./to-integration.ts";

/** `integrations.list`: the project's integrations by name, secrets masked. */
export const list = rpc.integrations.list.handler(({ input, context }) =>
  pageOfProjectRowsByName(context, input, {
    cursorField: "integration",
    read: listIntegrations,
    toResult: toIntegration,
  }),
);
