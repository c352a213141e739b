import { freePort } from "@weft/testing";
import { describe, expect, it } from "vitest";
import { parseJson, runCli } from "./support/run-cli.ts";
import { signedInPlatform } from "./support/signed-in-platform.ts";

const signedIn = signedInPlatform("projects@example.com");

describe("weft projects", () => {
  it("creates, gets and lists projects, as JSON and as text", async () => {
    const created = await runCli(["projects", "create", "shop", "--json"], { env: signedIn.env });
    expect(created.code).toBe(0);
    const project = parseJson<{ id: string; name: string }>(created);
    expect(project).toMatchObject({ id: expect.stringMatching(/^prj_/), name: "shop" });

    const got = await runCli(["projects", "get", project.id, "--json"], { env: signedIn.env });
    expect(parseJson(got)).toMatchObject({ id: project.id, name: "shop" });

    const listed = await runCli(["projects", "list", "--json"], { env: signedIn.env });
    expect(parseJson(listed)).toMatchObject({ results: [{ id: project.id }], totalCount: 1 });

    const text = await runCli(["projects", "list"], { env: signedIn.env });
    expect(text.stdout).toMatch(/^ID\s+NAME\s+WORKSPACE\s+CREATED\n/);
    expect(text.stdout).toContain(project.id);
  });

  it("renames a project and sets its retention; refuses a bad value or nothing to change with exit 2", async () => {
    const project = parseJson<{ id: string }>(
      await runCli(["projects", "create", "archive", "--json"], { env: signedIn.env }),
    );
    const updated = await runCli(
      ["projects", "update", project.id, "--name", "archive-eu", "--retention-days", "90", "--json"],
      { env: signedIn.env },
    );
    expect(updated.code).toBe(0);
    expect(parseJson(updated)).toMatchObject({ id: project.id, name: "archive-eu", retentionDays: 90 });

    const reset = await runCli(["projects", "update", project.id, "--retention-days", "default"], {
      env: signedIn.env,
    });
    expect(reset.code).toBe(0);
    expect(reset.stdout).toMatch(/retention\s+platform default/);

    for (const args of [["--retention-days", "0"], ["--retention-days", "soon"], []]) {
      const refused = await runCli(["projects", "update", project.id, ...args], { env: signedIn.env });
      expect(refused.code, args.join(" ")).toBe(2);
    }
    const unchanged = parseJson(await runCli(["projects", "get", project.id, "--json"], { env: signedIn.env }));
    expect(unchanged).toMatchObject({ name: "archive-eu", retentionDays: null });
  }, 60_000);

  it("pages with --limit and --after", async () => {
    await runCli(["projects", "create", "second"], { env: signedIn.env });
    const first = parseJson<{ results: unknown[]; pagination: { endCursor: string } }>(
      await runCli(["projects", "list", "--limit", "1", "--json"], { env: signedIn.env }),
    );
    expect(first.results).toHaveLength(1);
    const next = parseJson<{ results: unknown[] }>(
      await runCli(["projects", "list", "--limit", "1", "--after", first.pagination.endCursor, "--json"], {
        env: signedIn.env,
      }),
    );
    expect(next.results).toHaveLength(1);
    expect(next.results).not.toEqual(first.results);
    expect((await runCli(["projects", "list", "--limit", "0"], { env: signedIn.env })).code).toBe(2);
  });

  it("turns API refusals into exit 1 with the fix: 401 says run weft login, 404 says check the id", async () => {
    const unauthorized = await runCli(["projects", "list", "--json"], {
      env: { ...signedIn.env, WEFT_TOKEN: "weft_revoked" },
    });
    expect(unauthorized.code).toBe(1);
    expect(parseJson(unauthorized)).toMatchObject({
      error: { code: "unauthorized", fix: expect.stringContaining("run `weft login`") },
    });
    const missing = await runCli(["projects", "get", "prj_00000000000000000000000000"], { env: signedIn.env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/fix: check the id/);
  });

  it("says the platform cannot be reached, and how to start it", async () => {
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const result = await runCli(["projects", "list", "--api-url", nobody], { env: signedIn.env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`could not reach Weft at ${nobody} (ECONNREFUSED)`);
    expect(result.stderr).toContain("weft server");
  });
});
