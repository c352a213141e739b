import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CliError } from "../src/errors.ts";
import { loadConfig } from "../src/project/load-config.ts";

function project(config: string, files: Record<string, string> = {}): string {
  const directory = mkdtempSync(join(tmpdir(), "weft-config-"));
  writeFileSync(join(directory, "weft.config.ts"), config);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(directory, name), text);
  return join(directory, "weft.config.ts");
}

async function failure(path: string): Promise<CliError> {
  const error = await loadConfig(path).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof CliError)) throw new Error(`expected a CliError, got ${String(error)}`);
  return error;
}

describe("loading weft.config.ts", () => {
  it("bundles local imports and zod, and turns zod schemas into JSON Schema", async () => {
    const path = project(
      `import { defineConfig } from "@weft/sdk";
import { signup } from "./signup.ts";
export default defineConfig({ workflows: [signup] });`,
      {
        "signup.ts": `import { workflow } from "@weft/sdk";
import { z } from "zod";
export const signup = workflow({ name: "signup", input: z.object({ email: z.email() }), run: async (input) => input.email });`,
      },
    );
    const loaded = await loadConfig(path);
    expect(loaded.manifest.workflows[0]).toMatchObject({
      name: "signup",
      inputSchema: { type: "object", properties: { email: { type: "string", format: "email" } } },
    });
  });

  it("names the file and the definition of each invalid definition", async () => {
    const path = project(`import { defineConfig, workflow } from "@weft/sdk";
const echo = workflow({ name: "echo", retries: { maxAttempts: 0 }, run: async () => 1 });
export default defineConfig({
  workflows: [echo],
  forms: [{ name: "contact", workflow: "missing", schema: { type: "object" } }],
});`);
    const error = await failure(path);
    expect(error.code).toBe("invalid_definition");
    expect(error.message).toContain("weft.config.ts: workflows[echo].retries.maxAttempts:");
    expect(error.message).toContain(
      'weft.config.ts: forms[contact].workflow: form "contact" names the workflow "missing"',
    );
    expect(error.fix).toMatch(/nothing was uploaded/);
  });

  it("reports a syntax error with its file, line and column", async () => {
    const error = await failure(project("export default defineConfig({ workflows: [ });\n"));
    expect(error.code).toBe("bundle_failed");
    expect(error.message).toMatch(/weft\.config\.ts:1:\d+: /);
  });

  it("refuses a file that exports no configuration, or a workflow without run", async () => {
    expect((await failure(project("export const x = 1;\n"))).code).toBe("invalid_config");
    const error = await failure(project(`export default { workflows: [{ name: "bare" }] };\n`));
    expect(error.message).toContain("weft.config.ts: workflows[bare]: is not a workflow");
  });

  it("reports an error thrown while the config loads, at its line in the person's source", async () => {
    const error = await failure(
      project(`const key: string = "";\nif (key === "") throw new Error("no API key");\nexport default {};\n`),
    );
    expect(error.code).toBe("bundle_cannot_load");
    expect(error.message).toBe(
      "weft.config.ts throws while it loads in the sandbox: no API key (at weft.config.ts:2:23)",
    );
  });

  it("refuses a config that reads a file at its top level, which the sandbox does not allow, naming the line", async () => {
    const path = project(
      `import { defineConfig, workflow } from "@weft/sdk";
import { settings } from "./settings.ts";
export default defineConfig({ workflows: [workflow({ name: "w", run: async () => settings })] });`,
      {
        "settings.ts": `import { readFileSync } from "node:fs";
// Read once when the module loads: fine on a laptop, refused in the sandbox.
export const settings = readFileSync("/etc/hostname", "utf8");`,
      },
    );
    const error = await failure(path);
    expect(error.code).toBe("bundle_cannot_load");
    expect(error.message).toBe(
      "weft.config.ts reads /etc/hostname while it loads, which the sandbox does not allow (at settings.ts:3:25)",
    );
    expect(error.fix).toMatch(/nothing was uploaded/);
  });
});
