import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CliError } from "./errors.ts";

/**
 * A start-up script of the platform installed beside this CLI (`@weft/server`). The CLI does not
 * import the server's code; it only runs its entry points.
 */
export function platformEntry(file: "main.ts" | "worker-main.ts"): string {
  let index: string;
  try {
    index = import.meta.resolve("@weft/server");
  } catch {
    throw new CliError("the Weft platform (@weft/server) is not installed beside this CLI", {
      fix: "run `npm install` at the root of the Weft repository, then try again",
      code: "platform_missing",
    });
  }
  const path = fileURLToPath(new URL(file, index));
  if (!existsSync(path)) {
    throw new CliError(`this installation of the platform has no ${file}`, {
      fix: "update the Weft repository (`git pull && npm install`), then try again",
      code: "platform_missing",
    });
  }
  return path;
}
