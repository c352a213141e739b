import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { CliError } from "../errors.ts";
import { configFileName } from "./config-file.ts";

const configTemplate = `import { defineConfig, form, webhook } from "@weft/sdk";
import { greet } from "./workflows/greet.ts";

export default defineConfig({
  workflows: [greet],
  forms: [
    // A hosted form: GET /triggers/forms/<project>/contact renders it, and each submission runs "greet".
    form({
      name: "contact",
      workflow: "greet",
      title: "Say hello",
      visibility: "public",
      schema: {
        type: "object",
        properties: {
          name: { type: "string", title: "Your name", minLength: 1 },
          email: { type: "string", title: "Email", format: "email" },
        },
        required: ["name"],
      },
    }),
  ],
  webhooks: [
    // POST /triggers/webhooks/<project>/incoming runs "greet" with the request body as input.
    // Set HOOK_SECRET when you deploy to require callers to send it in the x-hook-secret header.
    webhook({
      name: "incoming",
      workflow: "greet",
      secret: process.env.HOOK_SECRET ? { header: "x-hook-secret", value: process.env.HOOK_SECRET } : undefined,
    }),
  ],
});
`;

const workflowTemplate = `import { workflow } from "@weft/sdk";

/** Greets whoever submitted the form. Each ctx.step runs once per execution, even across retries. */
export const greet = workflow({
  name: "greet",
  input: {
    type: "object",
    properties: { name: { type: "string" }, email: { type: "string" } },
    required: ["name"],
  },
  retries: { maxAttempts: 3, minDelay: "1s", maxDelay: "30s" },
  async run(input: { name: string; email?: string }, ctx) {
    const greeting = await ctx.step("compose", async () => \`Hello, \${input.name}!\`);
    ctx.log.info("composed a greeting", { greeting });
    return { greeting };
  },
});
`;

export interface ScaffoldResult {
  directory: string;
  created: string[];
  updated: string[];
}

/** The version range a new project depends on: this CLI's own `@weft/sdk`. */
function sdkRange(): string {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.resolve("@weft/sdk")), "utf8")) as {
    version: string;
  };
  return `^${manifest.version}`;
}

function ensurePackageJson(directory: string): "created" | "updated" | "unchanged" {
  const path = join(directory, "package.json");
  if (!existsSync(path)) {
    const name =
      basename(directory)
        .toLowerCase()
        .replace(/[^a-z0-9._-]+/g, "-") || "weft-project";
    writeFileSync(
      path,
      `${JSON.stringify({ name, private: true, type: "module", dependencies: { "@weft/sdk": sdkRange() } }, null, 2)}\n`,
    );
    return "created";
  }
  const text = readFileSync(path, "utf8");
  let manifest: { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  try {
    manifest = JSON.parse(text) as typeof manifest;
  } catch {
    throw new CliError(`${path} is not valid JSON`, { fix: "fix package.json and run `weft init` again" });
  }
  if (manifest.dependencies?.["@weft/sdk"] !== undefined || manifest.devDependencies?.["@weft/sdk"] !== undefined) {
    return "unchanged";
  }
  manifest.dependencies = { ...manifest.dependencies, "@weft/sdk": sdkRange() };
  const indent = /^[ \t]+/m.exec(text)?.[0] ?? "  ";
  writeFileSync(path, `${JSON.stringify(manifest, null, indent)}\n`);
  return "updated";
}

/**
 * Creates a project that deploys as it is: `weft.config.ts` with one form and one webhook, one
 * example workflow, and a dependency on `@weft/sdk`. Never overwrites a file.
 */
export function scaffoldProject(directory: string): ScaffoldResult {
  const configPath = join(directory, configFileName);
  if (existsSync(configPath)) {
    throw new CliError(`${configPath} already exists`, {
      fix: "deploy it with `weft deploy`, or run `weft init` in an empty directory",
      code: "already_initialized",
    });
  }
  const workflowPath = join(directory, "workflows", "greet.ts");
  if (existsSync(workflowPath)) {
    throw new CliError(`${workflowPath} already exists`, {
      fix: "move it away or run `weft init` in an empty directory",
      code: "already_initialized",
    });
  }
  mkdirSync(dirname(workflowPath), { recursive: true });
  writeFileSync(workflowPath, workflowTemplate);
  writeFileSync(configPath, configTemplate);
  const created = [configFileName, join("workflows", "greet.ts")];
  const updated: string[] = [];
  const packageJson = ensurePackageJson(directory);
  if (packageJson === "created") created.push("package.json");
  if (packageJson === "updated") updated.push("package.json");
  return { directory, created, updated };
}
