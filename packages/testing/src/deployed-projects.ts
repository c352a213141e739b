import { expect } from "vitest";
import { bundleConfig } from "./bundle.ts";
import { callRpc } from "./rpc-calls.ts";
import type { TestIdentity } from "./test-identities.ts";
import type { TestPlatform } from "./test-platform.ts";

/**
 * Creates a project named `project.name` for `owner` and deploys `project.manifest` there, its bundle
 * built from `project.source` (a `weft.config.ts`), through the API as the CLI does.
 */
export async function deployProject(
  weft: Pick<TestPlatform, "url">,
  owner: TestIdentity,
  project: { name: string; source: string; manifest: unknown },
): Promise<{ projectId: string; deploymentId: string }> {
  const created = await callRpc(weft.url, "projects.create", { name: project.name }, { token: owner.credential });
  const projectId = (created.json as { id: string }).id;
  const deployment = await callRpc(
    weft.url,
    "deployments.create",
    { projectId, manifest: project.manifest, bundle: await bundleConfig(project.source) },
    { token: owner.credential },
  );
  expect(deployment.status).toBe(200);
  return { projectId, deploymentId: (deployment.json as { id: string }).id };
}
