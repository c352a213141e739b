import { createTestDatabase, ensureTestProject, type TestDatabase } from "@weft/testing";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projects } from "../src/db/schema/index.ts";
import {
  createActiveDeploymentChanges,
  relayActiveDeploymentChanges,
} from "../src/deployments/active-deployment-changes.ts";
import { createDeployment } from "../src/deployments/create-deployment.ts";
import { activateDeployment } from "../src/deployments/read-deployments.ts";
import { activeDeploymentTtlMs, createActiveDeploymentReader } from "../src/ingress/active-deployment-reader.ts";
import { deleteProject } from "../src/projects/delete-project.ts";
import { createManualClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";
import { valueOrThrow } from "../src/shared/service-result.ts";

const clock = createManualClock();
/** A service of another process: it announces nothing in this one. */
const elsewhere = { clock, ids: createIdGenerator(clock) };
const manifest = { version: 1, workflows: [{ name: "ingest" }] };
const bundle = "export default { workflows: [] };";
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  for (const projectId of ["prj_one", "prj_two", "prj_none", "prj_gone", "prj_ttl", "prj_race"]) {
    await ensureTestProject(database.db, elsewhere, projectId);
  }
});
afterAll(async () => {
  await database.destroy();
});

/** A reader as one process's ingress has it, with the announcements it listens to. */
function processReader() {
  const changes = createActiveDeploymentChanges();
  return { changes, read: createActiveDeploymentReader({ db: database.db, clock, changes }) };
}

function nextAnnouncement(changes: ReturnType<typeof createActiveDeploymentChanges>, projectId: string) {
  return new Promise<void>((resolve) => {
    const unsubscribe = changes.subscribe((changed) => {
      if (changed !== projectId) return;
      unsubscribe();
      resolve();
    });
  });
}

describe("reading the active deployment of projects", () => {
  it("answers lookups made together each with its own project's active deployment", async () => {
    const one = valueOrThrow(
      await createDeployment(database.db, elsewhere, { projectId: "prj_one", manifest, bundle }),
    );
    const two = valueOrThrow(
      await createDeployment(database.db, elsewhere, { projectId: "prj_two", manifest, bundle }),
    );
    const { read } = processReader();
    const answers = await Promise.all(["prj_one", "prj_two", "prj_none", "prj_one"].map((id) => read(id)));
    expect(answers).toEqual([one.id, two.id, undefined, one.id]);
  });

  it("fails only the lookup the database refuses; the others of its batch are answered", async () => {
    const one = valueOrThrow(
      await createDeployment(database.db, elsewhere, { projectId: "prj_one", manifest, bundle }),
    );
    const { read } = processReader();
    const answers = await Promise.allSettled(["prj_one", "prj_\u0000bad", "prj_none"].map((id) => read(id)));
    expect(answers.map((answer) => answer.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(answers[0]).toEqual({ status: "fulfilled", value: one.id });
    expect(answers[2]).toEqual({ status: "fulfilled", value: undefined });
  });

  it("sees this process's new deployment and rollback at once, though it caches between lookups", async () => {
    const { changes, read } = processReader();
    const here = { ...elsewhere, activeDeploymentChanges: changes };
    const first = await read("prj_one");
    const next = valueOrThrow(await createDeployment(database.db, here, { projectId: "prj_one", manifest, bundle }));
    expect(await read("prj_one")).toBe(next.id);
    valueOrThrow(await activateDeployment(database.db, here, { projectId: "prj_one", deploymentId: first ?? "" }));
    expect(await read("prj_one")).toBe(first);
    valueOrThrow(await createDeployment(database.db, elsewhere, { projectId: "prj_one", manifest, bundle }));
    expect(await read("prj_one")).toBe(first);
  });

  it("hears of other processes' deployments, rollbacks and deleted projects through the database", async () => {
    const { changes, read } = processReader();
    const unlisten = await relayActiveDeploymentChanges(database, changes);
    try {
      const first = valueOrThrow(
        await createDeployment(database.db, elsewhere, { projectId: "prj_gone", manifest, bundle }),
      );
      expect(await read("prj_gone")).toBe(first.id);
      let announced = nextAnnouncement(changes, "prj_gone");
      const second = valueOrThrow(
        await createDeployment(database.db, elsewhere, { projectId: "prj_gone", manifest, bundle }),
      );
      await announced;
      expect(await read("prj_gone")).toBe(second.id);
      announced = nextAnnouncement(changes, "prj_gone");
      valueOrThrow(await activateDeployment(database.db, elsewhere, { projectId: "prj_gone", deploymentId: first.id }));
      await announced;
      expect(await read("prj_gone")).toBe(first.id);
      announced = nextAnnouncement(changes, "prj_gone");
      // The project's active deployment goes with it by cascade, which the trigger announces too.
      await database.db.execute(sql`delete from projects where id = 'prj_gone'`);
      await announced;
      expect(await read("prj_gone")).toBeUndefined();
    } finally {
      await unlisten();
    }
  });

  it("announces a project deleted by this process at once", async () => {
    const { changes, read } = processReader();
    valueOrThrow(await createDeployment(database.db, elsewhere, { projectId: "prj_two", manifest, bundle }));
    expect(await read("prj_two")).toBeDefined();
    const [owner] = await database.db
      .select({ accountId: projects.createdByAccountId })
      .from(projects)
      .where(eq(projects.id, "prj_two"));
    const actor = { accountId: owner?.accountId ?? "", credentialId: undefined };
    expect(
      valueOrThrow(
        await deleteProject(
          database.db,
          { ...elsewhere, activeDeploymentChanges: changes },
          { projectId: "prj_two", actor },
        ),
      ),
    ).toEqual({ id: "prj_two" });
    expect(await read("prj_two")).toBeUndefined();
  });

  it("reads again once an entry is older than its time to live, announced or not", async () => {
    const { read } = processReader();
    const first = valueOrThrow(
      await createDeployment(database.db, elsewhere, { projectId: "prj_ttl", manifest, bundle }),
    );
    expect(await read("prj_ttl")).toBe(first.id);
    const second = valueOrThrow(
      await createDeployment(database.db, elsewhere, { projectId: "prj_ttl", manifest, bundle }),
    );
    clock.advance(activeDeploymentTtlMs - 1);
    expect(await read("prj_ttl")).toBe(first.id);
    clock.advance(1);
    expect(await read("prj_ttl")).toBe(second.id);
  });

  it("does not cache what it read while a change was being announced", async () => {
    const { changes, read } = processReader();
    const first = valueOrThrow(
      await createDeployment(database.db, elsewhere, { projectId: "prj_race", manifest, bundle }),
    );
    const reading = read("prj_race");
    changes.publish("prj_race");
    expect(await reading).toBe(first.id);
    const second = valueOrThrow(
      await createDeployment(database.db, elsewhere, { projectId: "prj_race", manifest, bundle }),
    );
    expect(await read("prj_race")).toBe(second.id);
  });
});
