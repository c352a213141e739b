import { execFile } from "node:child_process";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import { describeWorkflowError } from "@weft/contract";
import { CliError } from "../errors.ts";

/** A bundle whose top level has not finished by then is reported, not waited for. */
const loadCheckTimeoutMs = 15_000;

// Runs in the child: imports the bundle, and reports what its top level threw as one JSON line.
const loader = `
try {
  await import(process.argv.at(-1));
  process.exit(0);
} catch (error) {
  const read = (key) => { try { return error?.[key]; } catch { return undefined; } };
  process.stdout.write(JSON.stringify({ message: String(read("message") ?? error), stack: read("stack"), code: read("code"), resource: read("resource") }));
  process.exit(1);
}`;

interface LoadFailure {
  message: string;
  stack?: string;
  code?: string;
  resource?: string;
}

/** Node's permission model: the sandbox's own second layer, which it always runs under. */
function permissionFlag(): string {
  return Number(process.versions.node.split(".")[0]) >= 22 ? "--permission" : "--experimental-permission";
}

/**
 * Loads a bundle the way the sandbox will: in a separate Node under the permission model, reading
 * only the bundle, with no write, no child process, no worker and no addon, with source maps on.
 * A top level that cannot load there would fail every execution later; deploy refuses it now and
 * names the line of the person's source that did it.
 */
export async function checkLoadsInSandbox(bundlePath: string, configFile: string): Promise<void> {
  const directory = dirname(bundlePath);
  const failure = await new Promise<LoadFailure | "timeout" | undefined>((resolve) => {
    execFile(
      process.execPath,
      [
        permissionFlag(),
        `--allow-fs-read=${directory}`,
        "--enable-source-maps",
        "--input-type=module",
        "--eval",
        loader,
        pathToFileURL(bundlePath).href,
      ],
      { env: { NODE_ENV: "production", TZ: "UTC" }, timeout: loadCheckTimeoutMs, cwd: directory },
      (error, stdout) => {
        if (error === null) return resolve(undefined);
        if (error.killed) return resolve("timeout");
        try {
          resolve(JSON.parse(stdout) as LoadFailure);
        } catch {
          resolve({ message: error.message });
        }
      },
    );
  });
  if (failure === undefined) return;
  if (failure === "timeout") {
    throw new CliError(`${configFile} did not finish loading within ${loadCheckTimeoutMs / 1000} s`, {
      fix: "move long work at the top level of your config and its imports into a workflow step",
      code: "bundle_cannot_load",
    });
  }
  const stack = failure.stack?.replaceAll(`${pathToFileURL(directory).href}/`, "").replaceAll(`${directory}/`, "");
  const denied = failure.code === "ERR_ACCESS_DENIED";
  const what = denied
    ? `reads ${failure.resource ?? "a file"} while it loads, which the sandbox does not allow`
    : `throws while it loads in the sandbox: ${describeWorkflowError({ message: failure.message, stack })}`;
  const location = denied ? describeWorkflowError({ message: "", stack }).trim() : "";
  throw new CliError(`${configFile} ${what}${location === "" ? "" : ` ${location}`}`, {
    fix: denied
      ? "a workflow reads no files: import the data so it is bundled, or fetch it in a step; nothing was uploaded"
      : "fix the error at the top level of your config or its imports; nothing was uploaded",
    code: "bundle_cannot_load",
  });
}
