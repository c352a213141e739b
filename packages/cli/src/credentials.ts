import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { CliError } from "./errors.ts";

/**
 * The CLI's credentials file: `{ "accessToken": "<credential>" }` at
 * `$XDG_CONFIG_HOME/weft/credentials`, or `~/.config/weft/credentials`. `WEFT_TOKEN` overrides it.
 */
export function credentialsPath(env: NodeJS.ProcessEnv): string {
  const configHome = env.XDG_CONFIG_HOME;
  // The XDG spec says a relative value is invalid and must be ignored.
  const base = configHome !== undefined && isAbsolute(configHome) ? configHome : join(homedir(), ".config");
  return join(base, "weft", "credentials");
}

export interface StoredCredentials {
  accessToken: string;
}

export function readCredentials(path: string): StoredCredentials | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const accessToken = (parsed as { accessToken?: unknown } | undefined)?.accessToken;
  if (typeof accessToken !== "string" || accessToken === "") {
    throw new CliError(`the credentials file ${path} is not valid JSON of the form {"accessToken": "..."}`, {
      fix: "run `weft login` to replace it",
      code: "invalid_credentials_file",
    });
  }
  return { accessToken };
}

/**
 * Writes the file atomically with mode 0600: a temporary file in the same directory, flushed, then
 * renamed over the old one, so a crash never leaves a half-written or world-readable credential.
 */
export function writeCredentials(path: string, credentials: StoredCredentials): void {
  const directory = dirname(path);
  mkdirSync(dirname(directory), { recursive: true });
  try {
    mkdirSync(directory, { mode: 0o700 });
    chmodSync(directory, 0o700);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const temporary = join(directory, `.credentials-${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(temporary, "wx", 0o600);
  try {
    writeSync(fd, `${JSON.stringify({ accessToken: credentials.accessToken }, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    // The umask may have narrowed the requested mode; make it exactly 0600.
    chmodSync(temporary, 0o600);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

export function removeCredentials(path: string): boolean {
  try {
    rmSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

export interface ResolvedToken {
  token: string;
  source: "WEFT_TOKEN" | "file";
  path: string;
}

/** `WEFT_TOKEN` (for CI) wins over the file; undefined when neither holds a credential. */
export function resolveToken(env: NodeJS.ProcessEnv): ResolvedToken | undefined {
  const path = credentialsPath(env);
  const fromEnv = env.WEFT_TOKEN?.trim();
  if (fromEnv) return { token: fromEnv, source: "WEFT_TOKEN", path };
  const stored = readCredentials(path);
  return stored === undefined ? undefined : { token: stored.accessToken, source: "file", path };
}
