import { callRpc, createTestIdentity, startTestPlatform, type TestPlatform, testServerUrl } from "@weft/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

let weft: TestPlatform;

/** Whether another backend waits for a lock this client holds: the deletion, for the execution's row. */
async function someoneWaitsOn(client: pg.Client): Promise<boolean> {
  const waiting = await client.query(
    "select 1 from pg_stat_activity where pg_backend_pid() = any(pg_blocking_pids(pid))",
  );
  return (waiting.rowCount ?? 0) > 0;
}

describe.skipIf(testServerUrl() === undefined)(
  "projects.delete against a worker ending an execution (PostgreSQL only)",
  () => {
    beforeAll(async () => {
      // The test plays the worker's statements itself: no worker of the platform's takes the execution.
      weft = await startTestPlatform({ env: { WEFT_ROLES: "auth,api,ingress" } });
    });
    afterAll(() => weft.stop());

    it("is run again when PostgreSQL makes it a deadlock's victim, and answers 200", async () => {
      const ann = await createTestIdentity(weft, "ann@example.com");
      const created = await callRpc(weft.url, "projects.create", { name: "Site" }, { token: ann.credential });
      const projectId = (created.json as { id: string }).id;
      const manifest = {
        version: 1,
        workflows: [{ name: "onboard" }],
        forms: [{ name: "contact", workflow: "onboard", schema: { type: "object" } }],
      };
      const deployment = { projectId, manifest, bundle: "export default {};" };
      expect((await callRpc(weft.url, "deployments.create", deployment, { token: ann.credential })).status).toBe(200);
      const submitted = await fetch(`${weft.url}/forms/contact?projectId=${projectId}`, {
        method: "POST",
        body: "{}",
        headers: { "content-type": "application/json" },
      });
      expect(submitted.status).toBe(202);

      const worker = new pg.Client({ connectionString: weft.database.url });
      await worker.connect();
      try {
        // The locks of a statement that changes an execution and inserts a row with a foreign key
        // to its project, in its order: the execution's row, then the project's.
        await worker.query("begin");
        const held = await worker.query("select 1 from executions where project_id = $1 for update", [projectId]);
        expect(held.rowCount).toBe(1);
        const deletion = callRpc(weft.url, "projects.delete", { projectId }, { token: ann.credential });
        await vi.waitFor(async () => expect(await someoneWaitsOn(worker)).toBe(true), {
          timeout: 10_000,
          interval: 20,
        });
        // The deletion waited first, so its deadlock check (after deadlock_timeout) finds the cycle
        // and rolls it back; this statement then goes through.
        await worker.query("select 1 from projects where id = $1 for key share", [projectId]);
        await worker.query("commit");
        const deleted = await deletion;
        expect(deleted.status).toBe(200);
        expect((await worker.query("select 1 from projects where id = $1", [projectId])).rowCount).toBe(0);
      } finally {
        await worker.end();
      }
    });
  },
);
