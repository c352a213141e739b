import type { ChildProcess } from "node:child_process";
import { appendFileSync, closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { createLogger, type Logger } from "@weft/server/internals";
import { logCaptureDirVariable, registeredSecretsFolder } from "./secret-scanner.ts";

/** Values shorter than this are too common to tell a leak from a coincidence. */
export const minimumRegisteredSecretLength = 8;

function captureDir(): string | undefined {
  const dir = process.env[logCaptureDirVariable];
  return dir === undefined || dir === "" ? undefined : dir;
}

let files = 0;

function captureFilePath(dir: string, kind: string): string {
  files += 1;
  return join(dir, `${kind}-${process.pid}-${files}.log`);
}

/** A stream that appends each chunk to a new capture file at once, so that nothing is lost when a test process ends. */
function captureFileStream(dir: string, kind: string): Writable {
  let fd: number | undefined;
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      fd ??= openSync(captureFilePath(dir, kind), "a");
      writeSync(fd, chunk);
      callback();
    },
    final(callback) {
      if (fd !== undefined) closeSync(fd);
      callback();
    },
  });
}

/** Appends every line that passes through to the run's capture files, when the run keeps them. */
export function captureLines(kind: string): ((line: Buffer | string) => void) | undefined {
  const dir = captureDir();
  if (dir === undefined) return undefined;
  const stream = captureFileStream(dir, kind);
  return (line) => {
    stream.write(line);
  };
}

/** pino's numbers for the levels a test may echo. */
const levelValues = { debug: 20, info: 30, warn: 40, error: 50 } as const;

/**
 * The logger a test platform writes with: every level into the run's capture files, and to stdout
 * as well at `WEFT_TEST_LOG_LEVEL` when that is set. Silent outside a test run unless that is set.
 */
export function testPlatformLogger(kind: string): Logger {
  const echoLevel = process.env.WEFT_TEST_LOG_LEVEL as keyof typeof levelValues | undefined;
  const dir = captureDir();
  if (dir === undefined) return createLogger({ level: echoLevel ?? "silent" });
  const file = captureFileStream(dir, kind);
  const destination =
    echoLevel === undefined
      ? file
      : new Writable({
          write(chunk: Buffer, encoding, callback) {
            const level = (JSON.parse(chunk.toString()) as { level: number }).level;
            if (level >= levelValues[echoLevel]) process.stdout.write(chunk);
            file.write(chunk, encoding, callback);
          },
        });
  return createLogger({ level: "debug", destination });
}

/** Keeps what a spawned platform process writes to stdout and stderr in the run's capture files. */
export function captureChildOutput(child: ChildProcess, kind: string): void {
  for (const stream of [child.stdout, child.stderr]) {
    const keep = stream === null ? undefined : captureLines(kind);
    if (keep !== undefined) stream?.on("data", keep);
  }
}

/**
 * Declares a value that no log line may contain, for secrets without a recognisable shape (a
 * webhook's shared secret, a form's password, an integration's key). The end-of-run scan reads them.
 */
export function registerSecret(value: string): void {
  const dir = captureDir();
  if (dir === undefined || value.length < minimumRegisteredSecretLength) return;
  const folder = join(dir, registeredSecretsFolder);
  mkdirSync(folder, { recursive: true });
  appendFileSync(join(folder, `${process.pid}.json`), `${JSON.stringify(value)}\n`);
}

/** Registers the shared secrets a manifest carries: webhook secret values and hosted forms' passwords. */
export function registerManifestSecrets(manifest: unknown): void {
  if (typeof manifest !== "object" || manifest === null) return;
  const { webhooks, forms } = manifest as { webhooks?: unknown; forms?: unknown };
  for (const webhook of Array.isArray(webhooks) ? webhooks : []) {
    const value = (webhook as { secret?: { value?: unknown } } | null)?.secret?.value;
    if (typeof value === "string") registerSecret(value);
  }
  for (const form of Array.isArray(forms) ? forms : []) {
    const password = (form as { basicAuth?: { password?: unknown } } | null)?.basicAuth?.password;
    if (typeof password === "string") registerSecret(password);
  }
}

/** Registers every value of an integration's `secrets` (`integrations.create`/`update` input), nested maps included. */
export function registerIntegrationSecrets(secrets: unknown): void {
  if (typeof secrets === "string") registerSecret(secrets);
  else if (typeof secrets === "object" && secrets !== null) {
    for (const value of Object.values(secrets)) registerIntegrationSecrets(value);
  }
}
