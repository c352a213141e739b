import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { CliError } from "../errors.ts";
import { PinError, pinProject } from "./pin-project.ts";

export const configFileName = "weft.config.ts";

/** The project's `weft.config.ts` in `directory`; fails with what to do when there is none. */
export function locateConfig(directory: string): string {
  const path = join(directory, configFileName);
  if (!existsSync(path)) {
    throw new CliError(`there is no ${configFileName} in ${directory}`, {
      fix: "run the command in your project's directory, or create a project there with `weft init`",
      code: "no_config",
    });
  }
  return path;
}

/** Pins deployments of the config at `path` to `projectId`, changing nothing else in the file. */
export function writePinnedProject(path: string, projectId: string): void {
  const source = readFileSync(path, "utf8");
  let updated: string;
  try {
    updated = pinProject(source, projectId);
  } catch (error) {
    if (error instanceof PinError) {
      throw new CliError(`${basename(path)}: ${error.message}, so the project could not be pinned`, {
        fix: `add \`project: "${projectId}",\` to the object your config exports, or pass --project ${projectId} on each deploy`,
        code: "pin_failed",
      });
    }
    throw error;
  }
  if (updated !== source) writeFileSync(path, updated);
}
