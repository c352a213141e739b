import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "./errors.ts";

/** The value of `--input` (or of `option`): JSON text, or `@path` naming a JSON file (relative to `cwd`). */
export function parseInputOption(value: string, cwd: string, option = "--input"): unknown {
  let text = value;
  let origin = option;
  if (value.startsWith("@")) {
    const path = resolve(cwd, value.slice(1));
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      throw new UsageError(
        `${option} ${value}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? "error"})`,
        {
          fix: `pass ${option} @<path to a JSON file> or ${option} '<json>'`,
        },
      );
    }
    origin = path;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`${origin} is not valid JSON: ${(error as Error).message}`, {
      fix: `quote the JSON for the shell, e.g. ${option} '{"n": 2}', or put it in a file and pass ${option} @input.json`,
    });
  }
}
