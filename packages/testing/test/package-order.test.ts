import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url));

/** Every workspace import a file may make, by where the file lives. */
const order: Record<string, readonly string[]> = {
  "packages/contract/src": [],
  "packages/sdk/src": ["@weft/contract"],
  "packages/sdk/test": ["@weft/contract"],
  "packages/client/src": ["@weft/contract"],
  "packages/client/test": ["@weft/contract", "@weft/client", "@weft/testing"],
  "packages/server/src": ["@weft/contract"],
  "packages/server/test": ["@weft/contract", "@weft/testing"],
  "packages/testing/src": ["@weft/contract", "@weft/sdk", "@weft/server", "@weft/server/internals"],
  "packages/cli/src": ["@weft/contract", "@weft/sdk", "@weft/client"],
  "packages/cli/test": ["@weft/contract", "@weft/sdk", "@weft/client", "@weft/testing"],
  "packages/studio/src": ["@weft/contract", "@weft/client"],
  "packages/studio/test": ["@weft/contract", "@weft/client"],
};

/** Workspace packages a package loads at run time without importing them (`weft server` starts the platform). */
const runtimeEdges: Record<string, readonly string[]> = { cli: ["@weft/server"] };

const workspaceImports = [
  "@weft/contract",
  "@weft/sdk",
  "@weft/client",
  "@weft/server",
  "@weft/server/bootstrap",
  "@weft/server/internals",
  "@weft/testing",
  "@weft/cli",
];

/** Relative imports, from a file's folder, and whether they stay inside the file's package. */
const relativeImports: { from: string; specifier: string; allowed: boolean }[] = [
  { from: "packages/cli/src", specifier: "../../server/src/platform.ts", allowed: false },
  { from: "packages/cli/src/commands", specifier: "../../../client/src/index.ts", allowed: false },
  { from: "packages/testing/src", specifier: "../../server/src/shared/clock.ts", allowed: false },
  { from: "packages/client/test", specifier: "../../testing/src/index.ts", allowed: false },
  { from: "packages/server/src", specifier: "../../contract/src/index.ts", allowed: false },
  { from: "bench", specifier: "../packages/server/src/platform.ts", allowed: false },
  { from: "packages/server/test", specifier: "../src/platform.ts", allowed: true },
  { from: "packages/server/src/engine", specifier: "../shared/clock.ts", allowed: true },
  // The server's layers: db/, then engine/, then the features, which the composition root wires.
  { from: "packages/server/src/engine", specifier: "../db/database.ts", allowed: true },
  { from: "packages/server/src/engine", specifier: "../billing/plans.ts", allowed: false },
  { from: "packages/server/src/engine", specifier: "../config/config.ts", allowed: false },
  {
    from: "packages/server/src/engine/execution-state",
    specifier: "../../studio/count-ended-execution.ts",
    allowed: false,
  },
  { from: "packages/server/src/engine/attempts", specifier: "../../integrations/secret-sealing.ts", allowed: false },
  { from: "packages/server/src/db", specifier: "../engine/worker.ts", allowed: false },
  { from: "packages/server/src/db", specifier: "../config/config.ts", allowed: false },
  { from: "packages/server/src/billing", specifier: "../engine/execution-state/index.ts", allowed: true },
  { from: "packages/cli/test", specifier: "./support/run-cli.ts", allowed: true },
  // Studio's layers: api, then components, then pages, then the app shell that routes to them.
  { from: "packages/studio/src/api", specifier: "../components/error-notice.tsx", allowed: false },
  { from: "packages/studio/src/api", specifier: "../pages/not-found-page.tsx", allowed: false },
  { from: "packages/studio/src/components", specifier: "../pages/not-found-page.tsx", allowed: false },
  { from: "packages/studio/src/components", specifier: "../app/routes.tsx", allowed: false },
  { from: "packages/studio/src/pages/agents", specifier: "../../app/routes.tsx", allowed: false },
  { from: "packages/studio/src/api", specifier: "./weft-client.ts", allowed: true },
  { from: "packages/studio/src/components", specifier: "../api/weft-query.ts", allowed: true },
  { from: "packages/studio/src/pages/agents", specifier: "../../components/query-state.tsx", allowed: true },
  { from: "packages/studio/src/pages/project", specifier: "./workflows-section.tsx", allowed: true },
  { from: "packages/studio/src/app", specifier: "../pages/not-found-page.tsx", allowed: true },
];

interface Probe {
  file: string;
  specifier: string;
  allowed: boolean;
}

const probes: Probe[] = [
  ...Object.entries(order).flatMap(([folder, allowed]) =>
    workspaceImports.map((specifier, index) => ({
      file: `${folder}/probe-${index}.ts`,
      specifier,
      allowed: allowed.includes(specifier),
    })),
  ),
  ...relativeImports.map(({ from, specifier, allowed }, index) => ({
    file: `${from}/relative-probe-${index}.ts`,
    specifier,
    allowed,
  })),
];

/** Two modules that import each other's types: a circle even though no value crosses it. */
const circle = [
  {
    file: "packages/server/src/engine/circle-a.ts",
    text: 'import type { B } from "./circle-b.ts";\nexport type A = B[];\n',
  },
  {
    file: "packages/server/src/engine/circle-b.ts",
    text: 'import type { A } from "./circle-a.ts";\nexport type B = A | string;\n',
  },
];

let flagged: Set<string>;
let inCircles: Set<string>;

/**
 * Lints one file per probe with the repository's own Biome configuration, in a copy of the layout,
 * and keeps the files that `noRestrictedImports` refuses, and those `noImportCycles` finds in a circle.
 */
beforeAll(() => {
  const directory = mkdtempSync(join(tmpdir(), "weft-package-order-"));
  try {
    copyFileSync(join(repositoryRoot, "biome.json"), join(directory, "biome.json"));
    for (const probe of probes) {
      const path = join(directory, probe.file);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, `export * from "${probe.specifier}";\n`);
    }
    for (const { file, text } of circle) writeFileSync(join(directory, file), text);
    const biome = join(repositoryRoot, "node_modules/@biomejs/biome/bin/biome");
    const report = lint(biome, directory);
    const pathsOf = (category: string) =>
      new Set(
        report.diagnostics
          .filter((diagnostic) => diagnostic.category === category)
          .map((diagnostic) => diagnostic.location.path),
      );
    flagged = pathsOf("lint/style/noRestrictedImports");
    inCircles = pathsOf("lint/suspicious/noImportCycles");
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

interface BiomeReport {
  diagnostics: { category: string; location: { path: string } }[];
}

function lint(biome: string, directory: string): BiomeReport {
  const args = [
    biome,
    "lint",
    "--only=style/noRestrictedImports",
    "--only=suspicious/noImportCycles",
    "--vcs-enabled=false",
    "--reporter=json",
    ".",
  ];
  try {
    return JSON.parse(
      execFileSync(process.execPath, args, { cwd: directory, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }),
    ) as BiomeReport;
  } catch (error) {
    // Biome exits with 1 when it reports errors; its report is still on stdout.
    const stdout = (error as { stdout?: string }).stdout;
    if (!stdout) throw error;
    return JSON.parse(stdout) as BiomeReport;
  }
}

describe("package order: contract → sdk, client → cli; contract → server", () => {
  it.each(probes)("$file: import of $specifier allowed: $allowed", ({ file, allowed }) => {
    expect(flagged.has(file)).toBe(!allowed);
  });
});

describe("import circles", () => {
  it("fail lint, type-only imports included", () => {
    expect([...inCircles].sort()).toEqual(circle.map(({ file }) => file));
  });
});

describe("package manifests", () => {
  const manifest = (name: string) =>
    JSON.parse(readFileSync(join(repositoryRoot, "packages", name, "package.json"), "utf8")) as {
      exports?: Record<string, string>;
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
  const workspaceNames = (dependencies: Record<string, string> | undefined) =>
    Object.keys(dependencies ?? {}).filter((name) => name.startsWith("@weft/"));

  it.each(["contract", "sdk", "client", "server", "testing", "cli", "studio"])(
    "%s declares only the workspace packages the order lets it load",
    (name) => {
      const { dependencies, peerDependencies, devDependencies } = manifest(name);
      const loads = [...(order[`packages/${name}/src`] ?? []), ...(runtimeEdges[name] ?? [])];
      for (const dependency of [...workspaceNames(dependencies), ...workspaceNames(peerDependencies)]) {
        expect(loads).toContain(dependency);
      }
      const testsLoad = order[`packages/${name}/test`] ?? [];
      for (const dependency of workspaceNames(devDependencies)) expect(testsLoad).toContain(dependency);
    },
  );

  it("the CLI declares the platform it starts, as an optional peer", () => {
    const cli = manifest("cli") as ReturnType<typeof manifest> & {
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    };
    expect(cli.peerDependencies?.["@weft/server"]).toBeDefined();
    expect(cli.peerDependenciesMeta?.["@weft/server"]?.optional).toBe(true);
  });

  it("@weft/server exports no test helpers", () => {
    const targets = Object.values(manifest("server").exports ?? {});
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) expect(target).toMatch(/^\.\/src\//);
  });
});
