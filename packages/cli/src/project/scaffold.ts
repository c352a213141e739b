import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CliError } from "../errors.ts";
import { configFileName } from "./config-file.ts";

const configTemplate = `import { defineConfig, form, webhook } from "@weft/sdk";
import { greet } from "./workflows/greet.ts";
import { greetCaller } from "./workflows/greet-caller.ts";
import { welcome } from "./workflows/welcome.ts";

export default defineConfig({
  // "welcome" runs at each user.signed-up event: weft events send user.signed-up --data '{"name": "Lin"}'
  workflows: [greet, greetCaller, welcome],
  forms: [
    // A hosted form: open GET /triggers/forms/<project>/contact in a browser and submit it; each
    // submission runs "greet" with the form's fields as input.
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
    // curl -X POST <base url>/triggers/webhooks/<project>/incoming -H 'content-type: application/json' -d '{"name":"Ada"}'
    // runs "greet-caller" with the request as input: { body, headers, query, method }.
    // Set HOOK_SECRET when you deploy to require callers to send it in the x-hook-secret header.
    webhook({
      name: "incoming",
      workflow: "greet-caller",
      secret: process.env.HOOK_SECRET ? { header: "x-hook-secret", value: process.env.HOOK_SECRET } : undefined,
    }),
  ],
});
`;

const greetTemplate = `import { workflow } from "@weft/sdk";

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

const greetCallerTemplate = `import { type WebhookInput, workflow } from "@weft/sdk";
import { greet } from "./greet.ts";

/**
 * Greets whoever called the webhook: its input is the request, and the JSON body names the caller.
 * The greeting comes from \`greet\`, run as a child workflow: an execution of its own, which this
 * one waits for (without holding a worker) and whose output it gets.
 */
export const greetCaller = workflow({
  name: "greet-caller",
  async run(request: WebhookInput, ctx) {
    const body = typeof request.body === "object" && request.body !== null ? request.body : {};
    const name = "name" in body && typeof body.name === "string" ? body.name : "stranger";
    const { greeting } = await ctx.invoke("greet", greet, { name });
    ctx.log.info("composed a greeting", { greeting, method: request.method });
    return { greeting };
  },
});
`;

const welcomeTemplate = `import { type WeftEvent, workflow } from "@weft/sdk";

/** Welcomes a new user: it subscribes to the user.signed-up event, which it receives as its input. */
export const welcome = workflow({
  name: "welcome",
  on: [{ event: "user.signed-up" }],
  async run(event: WeftEvent<{ name?: string }>, ctx) {
    const name = typeof event.data?.name === "string" ? event.data.name : "stranger";
    const greeting = await ctx.step("compose", async () => \`Welcome, \${name}!\`);
    return { greeting };
  },
});
`;

/** Lets the editor and `npx tsc --noEmit` check the project; the CLI bundles it with esbuild, not tsc. */
const tsconfigTemplate = `${JSON.stringify(
  {
    compilerOptions: {
      target: "es2022",
      module: "nodenext",
      moduleResolution: "nodenext",
      strict: true,
      noEmit: true,
      allowImportingTsExtensions: true,
      skipLibCheck: true,
      types: ["node"],
    },
    include: ["weft.config.ts", "workflows"],
  },
  null,
  2,
)}\n`;

/** What `npx tsc --noEmit` needs: the compiler, and the types of Node for `process.env`. */
const devDependencies = { "@types/node": "^24.0.0", typescript: "^5.9.0" };

export interface ScaffoldResult {
  directory: string;
  created: string[];
  updated: string[];
}

/** Where this repository builds the SDK's tarball on demand; no installed CLI has it. */
const repositorySdkTarball = new URL("../../../../pack/sdk-tarball.ts", import.meta.url);

/**
 * How a new project depends on `@weft/sdk`: a `file:` path to the SDK's tarball, which the CLI's own
 * tarball carries and which this repository builds on demand. Never a registry range: the SDK is
 * not on the registry, and a package published there under its name would be a stranger's.
 */
async function sdkDependency(): Promise<string> {
  const packed = fileURLToPath(new URL("../../sdk/weft-sdk.tgz", import.meta.url));
  if (existsSync(packed)) return `file:${packed}`;
  if (existsSync(repositorySdkTarball)) {
    const { sdkTarball } = (await import(repositorySdkTarball.href)) as { sdkTarball: () => string };
    return `file:${sdkTarball()}`;
  }
  throw new CliError(`this weft has no SDK tarball at ${packed}`, {
    fix: "reinstall the CLI from its tarball (npm run pack in the Weft repository writes it), or run weft from a checkout of the repository",
    code: "sdk_missing",
  });
}

interface PackageJsonChange {
  path: string;
  text: string;
  kind: "created" | "updated";
}

/** The package.json to write, worked out before anything is written; undefined when it has all it needs. */
async function planPackageJson(directory: string): Promise<PackageJsonChange | undefined> {
  const path = join(directory, "package.json");
  if (!existsSync(path)) {
    const name =
      basename(directory)
        .toLowerCase()
        .replace(/[^a-z0-9._-]+/g, "-") || "weft-project";
    const manifest = {
      name,
      private: true,
      type: "module",
      dependencies: { "@weft/sdk": await sdkDependency() },
      devDependencies,
    };
    return { path, text: `${JSON.stringify(manifest, null, 2)}\n`, kind: "created" };
  }
  const text = readFileSync(path, "utf8");
  let manifest: { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  try {
    manifest = JSON.parse(text) as typeof manifest;
  } catch {
    throw new CliError(`${path} is not valid JSON`, {
      fix: "fix package.json and run `weft init` again; nothing was written",
      code: "invalid_package_json",
    });
  }
  const has = (name: string) =>
    manifest.dependencies?.[name] !== undefined || manifest.devDependencies?.[name] !== undefined;
  const missingTools = Object.entries(devDependencies).filter(([name]) => !has(name));
  if (has("@weft/sdk") && missingTools.length === 0) return undefined;
  if (!has("@weft/sdk")) manifest.dependencies = { ...manifest.dependencies, "@weft/sdk": await sdkDependency() };
  if (missingTools.length > 0) {
    manifest.devDependencies = { ...manifest.devDependencies, ...Object.fromEntries(missingTools) };
  }
  const indent = /^[ \t]+/m.exec(text)?.[0] ?? "  ";
  return { path, text: `${JSON.stringify(manifest, null, indent)}\n`, kind: "updated" };
}

/**
 * Creates a project that deploys as it is: `weft.config.ts` with one form and one webhook, the
 * workflow each runs, a tsconfig.json, and a dependency on `@weft/sdk`. Never overwrites a file.
 */
export async function scaffoldProject(directory: string): Promise<ScaffoldResult> {
  const configPath = join(directory, configFileName);
  if (existsSync(configPath)) {
    throw new CliError(`${configPath} already exists`, {
      fix: "deploy it with `weft deploy`, or run `weft init` in an empty directory",
      code: "already_initialized",
    });
  }
  const files: [string, string][] = [
    [join("workflows", "greet.ts"), greetTemplate],
    [join("workflows", "greet-caller.ts"), greetCallerTemplate],
    [join("workflows", "welcome.ts"), welcomeTemplate],
  ];
  for (const [file] of files) {
    if (existsSync(join(directory, file))) {
      throw new CliError(`${join(directory, file)} already exists`, {
        fix: "move it away or run `weft init` in an empty directory",
        code: "already_initialized",
      });
    }
  }
  const packageJson = await planPackageJson(directory);
  mkdirSync(join(directory, "workflows"), { recursive: true });
  for (const [file, text] of files) writeFileSync(join(directory, file), text);
  writeFileSync(configPath, configTemplate);
  const created = [configFileName, ...files.map(([file]) => file)];
  if (!existsSync(join(directory, "tsconfig.json"))) {
    writeFileSync(join(directory, "tsconfig.json"), tsconfigTemplate);
    created.push("tsconfig.json");
  }
  const updated: string[] = [];
  if (packageJson !== undefined) {
    writeFileSync(packageJson.path, packageJson.text);
    (packageJson.kind === "created" ? created : updated).push("package.json");
  }
  return { directory, created, updated };
}
