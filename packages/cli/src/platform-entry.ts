import { CliError } from "./errors.ts";

/**
 * The platform's start-up module. The CLI loads it only when asked to run a platform, so that the
 * other commands work without `@weft/server` installed (it is an optional peer dependency), and it
 * never imports the server's types: the package order allows this one runtime edge and nothing else.
 */
const platformEntry = "@weft/server/bootstrap";

type PlatformKind = "platform" | "worker" | "rotate-secret-key" | "set-plan";

/** What the platform's start-up module offers. */
interface PlatformBootstrap {
  bootstrap(env: Readonly<Record<string, string | undefined>>, kind: PlatformKind, args?: string[]): Promise<void>;
}

/** Starts the platform installed beside this CLI (`@weft/server`) with the given environment. */
export async function bootstrapPlatform(
  env: Readonly<Record<string, string | undefined>>,
  kind: PlatformKind,
  args: string[] = [],
): Promise<void> {
  const { bootstrap } = (await import(resolvePlatformEntry())) as PlatformBootstrap;
  await bootstrap(env, kind, args);
}

function resolvePlatformEntry(): string {
  try {
    return import.meta.resolve(platformEntry);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_PACKAGE_PATH_NOT_EXPORTED") {
      throw new CliError(`this installation of the platform has no ${platformEntry}`, {
        fix: "update the Weft repository (`git pull && npm install`), then try again",
        code: "platform_missing",
      });
    }
    // The packed CLI never carries the platform: it is run from a checkout of the repository.
    throw new CliError("the Weft platform (@weft/server) is not installed beside this CLI", {
      fix: "run the platform from a checkout of the Weft repository: `npm install` at its root, then `npx weft server` there",
      code: "platform_missing",
    });
  }
}
