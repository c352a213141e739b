import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { beforeAll, expect } from "vitest";
import { type CliResult, parseJson, runCli } from "./run-cli.ts";
import type { SignedInPlatform } from "./signed-in-platform.ts";

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

export interface ProjectOfFile extends DeployedProject {
  /** Runs `weft` in the project's directory as the signed-in person, with `input` on its standard input. */
  cli(args: string[], input?: string): Promise<CliResult>;
}

/**
 * Deploys `files` as a new project named `name` before the file's tests, once `signedIn` has
 * started: the project every test of the file runs `weft` in. Its fields can be read from the
 * file's tests.
 */
export function deployedProject(
  signedIn: SignedInPlatform,
  name: string,
  files: Record<string, string>,
): ProjectOfFile {
  let project: DeployedProject | undefined;
  beforeAll(async () => {
    project = await deployNewProject(signedIn.env, name, files);
  }, 120_000);
  const deployed = () => {
    if (project === undefined) throw new Error("the project is deployed in the file's beforeAll");
    return project;
  };
  return {
    get directory() {
      return deployed().directory;
    },
    get projectId() {
      return deployed().projectId;
    },
    cli: (args, input) =>
      runCli(args, { cwd: deployed().directory, env: signedIn.env, ...(input === undefined ? {} : { input }) }),
  };
}
