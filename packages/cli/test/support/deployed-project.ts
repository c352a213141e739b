import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { expect } from "vitest";
import { parseJson, runCli } from "./run-cli.ts";

export interface DeployedProject {
  /** The project's directory, where the CLI finds the project pinned. */
  directory: string;
  projectId: string;
}

/**
 * Writes `files` (by their paths in the project, e.g. "weft.config.ts") to a fresh directory and
 * deploys it with `weft deploy --create --name <name>`, as a person starts a project.
 */
export async function deployNewProject(
  env: Record<string, string>,
  name: string,
  files: Record<string, string>,
): Promise<DeployedProject> {
  const directory = mkdtempSync(join(tmpdir(), `weft-${name}-`));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(directory, path)), { recursive: true });
    writeFileSync(join(directory, path), text);
  }
  const deployed = await runCli(["deploy", "--create", "--name", name, "--json"], { cwd: directory, env });
  expect(deployed.code, deployed.stderr).toBe(0);
  return { directory, projectId: parseJson<{ projectId: string }>(deployed).projectId };
}
