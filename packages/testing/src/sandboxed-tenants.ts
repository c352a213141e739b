import { resolveSandboxIsolation } from "@weft/server/internals";
import { expect } from "vitest";
import { deployProject } from "./deployed-projects.ts";
import { callRpc } from "./rpc-calls.ts";
import { createTestIdentity, type TestIdentity } from "./test-identities.ts";
import type { TestPlatform } from "./test-platform.ts";

/**
 * Whether the suites of workflow code under bubblewrap run here: where bubblewrap works, and
 * always under WEFT_TEST_REQUIRE_SANDBOX=1 (CI installs it), so that they fail rather than skip.
 * Their attacks would reach the test runner itself without the sandbox's namespaces.
 */
export async function sandboxSuitesRunHere(): Promise<boolean> {
  if (process.env.WEFT_TEST_REQUIRE_SANDBOX === "1") return true;
  return (await resolveSandboxIsolation({ mode: "auto", egress: "public", egressAllow: [] })).kind === "isolated";
}

/** A tenant's deployment on a started platform, and its owner to call it with. */
export interface DeployedTenant {
  weft: TestPlatform;
  owner: TestIdentity;
  projectId: string;
  deploymentId: string;
}

export interface TenantWorkflows {
  /** The project's `weft.config.ts`. */
  source: string;
  /** The workflows it defines, each with `maxAttempts: 1` unless given. */
  workflows: readonly string[];
  maxAttempts?: number;
  /** Each workflow's own timeout, as its manifest entry carries it (`timeout` in the config). */
  timeoutsMs?: Readonly<Record<string, number>>;
}

/** Makes an account (`email`), a project and a deployment of `workflows` on `weft`. */
export async function deployTenant(
  weft: TestPlatform,
  email: string,
  workflows: TenantWorkflows,
): Promise<DeployedTenant> {
  const owner = await createTestIdentity(weft, email);
  const retries = { maxAttempts: workflows.maxAttempts ?? 1, minDelayMs: 0, maxDelayMs: 0 };
  const manifest = {
    version: 1,
    workflows: workflows.workflows.map((name) => ({ name, retries, timeoutMs: workflows.timeoutsMs?.[name] })),
  };
  const deployed = await deployProject(weft, owner, {
    name: email.split("@")[0] ?? "",
    source: workflows.source,
    manifest,
  });
  return { weft, owner, ...deployed };
}

/** An execution as `workflows.getExecution` answers it. */
export interface ExecutionView {
  id: string;
  status: string;
  output: unknown;
  error: { name: string; message: string } | null;
  steps: { name: string; output: unknown }[];
}

/** Starts one execution of `workflow` and answers its id. */
export async function startExecution(target: DeployedTenant, workflow: string, input: unknown): Promise<string> {
  const ran = await callRpc(
    target.weft.url,
    "workflows.run",
    { projectId: target.projectId, workflow, input },
    { token: target.owner.credential },
  );
  expect(ran.status).toBe(200);
  return (ran.json as { executionId: string }).executionId;
}

/** Polls an execution until it is final; every hostile execution must end, never stay running. */
export async function waitForEnd(
  target: DeployedTenant,
  executionId: string,
  withinMs = 20_000,
): Promise<ExecutionView> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const { json } = await callRpc(
      target.weft.url,
      "workflows.getExecution",
      { executionId },
      { token: target.owner.credential },
    );
    const execution = json as ExecutionView;
    if (["succeeded", "failed", "cancelled"].includes(execution.status)) return execution;
    if (Date.now() > deadline) throw new Error(`execution did not end: ${JSON.stringify(execution)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Runs one execution of `workflow` and waits until it ends. */
export async function runToEnd(
  target: DeployedTenant,
  workflow: string,
  input: unknown,
  withinMs?: number,
): Promise<ExecutionView> {
  return waitForEnd(target, await startExecution(target, workflow, input), withinMs);
}
