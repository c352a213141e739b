import {
  createDeployment,
  type Database,
  enqueueExecution,
  executions,
  spans,
  valueOrThrow,
} from "@weft/server/internals";
import { and, eq } from "drizzle-orm";
import { bundleConfig } from "./bundle.ts";
import { ensureTestProject } from "./test-projects.ts";

export type ExecutionRow = typeof executions.$inferSelect;

type DeploymentDeps = Parameters<typeof createDeployment>[1];
type EnqueueRequest = Parameters<typeof enqueueExecution>[2];

/**
 * Deploys `manifest` into `projectId` through the deployments service, creating the project (in
 * the personal workspace of `owner`, an email, when given) so that the foreign keys hold. The
 * bundle is built from `configSource` (a `weft.config.ts`) when given, so that workers can run it;
 * otherwise it is empty. Answers the deployment's id.
 */
export async function deployTestProject(
  db: Database,
  deps: DeploymentDeps,
  input: { projectId: string; manifest: unknown; configSource?: string; owner?: string },
): Promise<string> {
  await ensureTestProject(db, deps, input.projectId, input.owner);
  const bundle = input.configSource === undefined ? "export default {};" : await bundleConfig(input.configSource);
  const deployment = valueOrThrow(
    await createDeployment(db, deps, { projectId: input.projectId, manifest: input.manifest, bundle }),
  );
  return deployment.id;
}

/** Enqueues a run of a deployment's workflow (input `{}` unless given), triggered over the API unless `trigger` says otherwise; its id. */
export async function enqueueTestExecution(
  db: Database,
  deps: Parameters<typeof enqueueExecution>[1],
  request: Omit<EnqueueRequest, "input" | "trigger"> & { input?: unknown; trigger?: EnqueueRequest["trigger"] },
): Promise<string> {
  const { executionId } = valueOrThrow(
    await db.transaction((tx) =>
      enqueueExecution(tx, deps, {
        ...request,
        input: "input" in request ? request.input : {},
        trigger: request.trigger ?? { kind: "api" },
      }),
    ),
  );
  return executionId;
}

/** An execution's row; throws when there is none. */
export async function readExecution(db: Database, executionId: string): Promise<ExecutionRow> {
  const [row] = await db.select().from(executions).where(eq(executions.id, executionId));
  if (row === undefined) throw new Error(`no execution ${executionId}`);
  return row;
}

/** Polls the execution's row until it satisfies `until`, then answers it; throws after `timeoutMs`. */
export async function waitForExecution(
  db: Database,
  executionId: string,
  until: (row: ExecutionRow) => boolean,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<ExecutionRow> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const row = await readExecution(db, executionId);
    if (until(row)) return row;
    if (Date.now() > deadline) {
      throw new Error(`execution ${executionId} did not reach the expected state: ${JSON.stringify(row)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 20));
  }
}

/** The names of an execution's attempt spans, sorted: "attempt 1", "attempt 1 (resumed)", … */
export async function attemptSpanNames(db: Database, executionId: string): Promise<string[]> {
  const rows = await db
    .select({ name: spans.name })
    .from(spans)
    .where(and(eq(spans.executionId, executionId), eq(spans.kind, "attempt")));
  return rows.map((row) => row.name).sort();
}
