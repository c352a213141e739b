import {
  allScopes,
  createDeployment,
  createIdGenerator,
  type Database,
  findOrCreateAccount,
  issueCredential,
  systemClock,
  valueOrThrow,
} from "@weft/server/internals";
import { bundleConfig, ensureTestProject } from "@weft/testing";

/** What the load needs to reach the project: its id, a credential for `workflows.run`. */
export interface FaultProject {
  projectId: string;
  token: string;
}

export const faultWorkflow = "faulted";
export const faultWebhook = "orders";
export const faultForm = "signup";
const ownerEmail = "faults@tests.weft.invalid";

/**
 * The workflow every request starts: 3 to 5 steps (`steps` of its data), a short durable sleep
 * between two steps, each step reporting its run to the step counter as `<marker>/s<i>`. A webhook's
 * input wraps the data in `body`; a form's and `workflows.run`'s input is the data.
 */
function workflowSource(counterBase: string): string {
  return `
import { defineConfig, workflow } from "@weft/sdk";
type Data = { marker: string; steps: number };
export default defineConfig({
  workflows: [
    workflow({
      name: "${faultWorkflow}",
      async run(input: Data | { body: Data }, ctx) {
        const data = "body" in input ? input.body : input;
        const results: string[] = [];
        for (let index = 1; index <= data.steps; index += 1) {
          const name = "s" + index;
          results.push(
            await ctx.step(name, async () => (await fetch(${JSON.stringify(counterBase)} + "/" + data.marker + "/" + name)).text()),
          );
          if (index < data.steps) await ctx.sleep("pause" + index, "50ms");
        }
        return results;
      },
    }),
  ],
});
`;
}

const dataSchema = {
  type: "object",
  properties: { marker: { type: "string", minLength: 1 }, steps: { type: "integer", minimum: 3, maximum: 5 } },
  required: ["marker", "steps"],
};

/** Creates the project, its active deployment (a webhook and a public form) and a credential. */
export async function seedFaultProject(db: Database, counterBase: string): Promise<FaultProject> {
  const deps = { clock: systemClock, ids: createIdGenerator(systemClock) };
  const projectId = deps.ids("project");
  const token = await db.transaction(async (tx) => {
    const account = await findOrCreateAccount(tx, deps, ownerEmail);
    const issued = await issueCredential(tx, deps, { accountId: account.accountId, scopes: [...allScopes] });
    return issued.credential;
  });
  await ensureTestProject(db, deps, projectId, ownerEmail);
  valueOrThrow(
    await createDeployment(db, deps, {
      projectId,
      manifest: {
        version: 1,
        workflows: [{ name: faultWorkflow }],
        webhooks: [{ name: faultWebhook, workflow: faultWorkflow }],
        forms: [{ name: faultForm, workflow: faultWorkflow, schema: dataSchema }],
      },
      bundle: await bundleConfig(workflowSource(counterBase)),
    }),
  );
  return { projectId, token };
}
