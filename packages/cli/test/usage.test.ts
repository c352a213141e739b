import { callRpc, deployManifest } from "@weft/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { parseJson, runCli } from "./support/run-cli.ts";
import { signedInPlatform } from "./support/signed-in-platform.ts";

const signedIn = signedInPlatform("cli-usage@example.com", {
  env: { WEFT_ROLES: "auth,api" },
  startsAt: new Date("2026-11-02T12:00:00.000Z"),
});
let projectId: string;

beforeAll(async () => {
  const { weft, identity } = signedIn;
  const token = { token: identity.credential };
  const created = await callRpc(weft.url, "projects.create", { name: "metered" }, token);
  projectId = (created.json as { id: string }).id;
  await deployManifest(weft, projectId, { version: 1, workflows: [{ name: "echo" }] });
  const run = () => callRpc(weft.url, "workflows.run", { projectId, workflow: "echo", input: { a: 1 } }, token);
  await run();
  weft.clock.set(new Date("2026-11-03T12:00:00.000Z"));
  await run();
  await run();
});

describe("weft usage and weft plan", () => {
  it("prints usage per day and per project, as a table or JSON", async () => {
    const range = ["--from", "2026-11-01", "--to", "2026-11-30"];
    const byDay = await runCli(["usage", ...range, "--json"], { env: signedIn.env });
    expect(byDay.code).toBe(0);
    expect(parseJson(byDay)).toMatchObject({
      groupBy: "day",
      totals: { executions: 3, executionsByTrigger: { api: 3 }, activeProjects: 1 },
    });
    // Every UTC day of the range, the days without usage with zeros.
    const rows = (parseJson(byDay) as { rows: { day: string; executions: number }[] }).rows;
    expect(rows).toHaveLength(30);
    expect(rows.slice(0, 4)).toMatchObject([
      { day: "2026-11-01", executions: 0 },
      { day: "2026-11-02", executions: 1 },
      { day: "2026-11-03", executions: 2 },
      { day: "2026-11-04", executions: 0 },
    ]);
    const text = await runCli(["usage", ...range], { env: signedIn.env });
    expect(text.stdout).toMatch(
      /^DAY\s+EXECUTIONS\s+STEP-SECONDS\s+STORED\n2026-11-01\s+0\s+0\.00\s+0 B\n2026-11-02\s+1\s+0\.00\s+\d+ B\n/,
    );
    expect(text.stdout).toMatch(/total: 3 executions/);
    const byProject = await runCli(["usage", ...range, "--by", "project"], { env: signedIn.env });
    expect(byProject.stdout).toMatch(new RegExp(`PROJECT.*\\n${projectId}\\s+3\\s`));
  });

  it("refuses --from after --to, a range over 400 days and an unknown grouping, with exit code 2", async () => {
    expect((await runCli(["usage", "--from", "2026-11-05", "--to", "2026-11-01"], { env: signedIn.env })).code).toBe(2);
    expect((await runCli(["usage", "--from", "2025-01-01", "--to", "2026-11-01"], { env: signedIn.env })).code).toBe(2);
    expect((await runCli(["usage", "--by", "week"], { env: signedIn.env })).code).toBe(2);
  });

  it("prints the plan and this month's use", async () => {
    const plan = await runCli(["plan", "--json"], { env: signedIn.env });
    expect(parseJson(plan)).toMatchObject({ plan: { name: "unlimited" }, used: { executions: 3, projects: 1 } });
    const text = await runCli(["plan"], { env: signedIn.env });
    expect(text.stdout).toMatch(/plan\s+unlimited\n/);
    expect(text.stdout).toMatch(/executions\s+3 of unlimited this month/);
  });
});
