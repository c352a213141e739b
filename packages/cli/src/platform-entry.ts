import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { CliError } from "./errors.ts";

/** What the platform's start-up module (`@weft/server`'s `process/bootstrap.ts`) offers. */
interface PlatformBootstrap {
  bootstrap(env: Readonly<Record<string, string | undefined>>, kind: "platform" | "worker"): Promise<void>;
}

/**
 * Starts the platform installed beside this CLI (`@weft/server`) with the given environment. The CLI
 * does not depend on the server's code at build time; it loads its start-up module when asked to run it.
 */
export async function bootstrapPlatform(
  env: Readonly<Record<string, string | undefined>>,
  kind: "platform" | "worker",
): Promise<void> {
  const { bootstrap } = (await import(pathToFileURL(platformEntry("process/bootstrap.ts")).href)) as PlatformBootstrap;
  await bootstrap(env, kind);
}

function platformEntry(file: string): string {
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
