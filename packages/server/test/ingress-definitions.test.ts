import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDeployment } from "../src/deployments/create-deployment.ts";
import { activateDeployment } from "../src/deployments/read-deployments.ts";
import { createActiveDeploymentReader } from "../src/ingress/find-ingress-definitions.ts";
import { createManualClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";
import { createTestDatabase, ensureTestProject, type TestDatabase } from "./support/index.ts";

const clock = createManualClock();
const deps = { clock, ids: createIdGenerator(clock) };
const manifest = { version: 1, workflows: [{ name: "ingest" }] };
const bundle = "export default { workflows: [] };";
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  for (const projectId of ["prj_one", "prj_two", "prj_none"]) await ensureTestProject(database.db, deps, projectId);
});
afterAll(async () => {
  await database.destroy();
});

describe("reading the active deployment of projects", () => {
  it("answers lookups made together each with its own project's active deployment", async () => {
    const one = await createDeployment(database.db, deps, { projectId: "prj_one", manifest, bundle });
    const two = await createDeployment(database.db, deps, { projectId: "prj_two", manifest, bundle });
    const read = createActiveDeploymentReader(database.db);
    const answers = await Promise.all(["prj_one", "prj_two", "prj_none", "prj_one"].map((id) => read(id)));
    expect(answers).toEqual([one.id, two.id, undefined, one.id]);
  });

  it("sees a new deployment and a rollback at once: nothing is cached between lookups", async () => {
    const read = createActiveDeploymentReader(database.db);
    const first = await read("prj_one");
    const next = await createDeployment(database.db, deps, { projectId: "prj_one", manifest, bundle });
    expect(await read("prj_one")).toBe(next.id);
    await activateDeployment(database.db, deps, { projectId: "prj_one", deploymentId: first ?? "" });
    expect(await read("prj_one")).toBe(first);
  });
});
