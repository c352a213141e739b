import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `podman` with `args` (settings from CONTAINERS_CONF, as `npm run test:image` sets them). */
export async function podman(args: string[], options: { timeoutMs?: number } = {}): Promise<CommandResult> {
  try {
    const { stdout, stderr } = await run("podman", args, {
      timeout: options.timeoutMs ?? 120_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === "number" ? failed.code : 1,
      stdout: failed.stdout ?? "",
      stderr: failed.stderr ?? String(error),
    };
  }
}

/** Like `podman`, failing with its output when it exits other than 0. */
export async function podmanOk(args: string[], options: { timeoutMs?: number } = {}): Promise<string> {
  const result = await podman(args, options);
  if (result.code !== 0) {
    throw new Error(`podman ${args.join(" ")} exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

/** A container's output so far, stdout and stderr together. */
export async function containerLogs(name: string): Promise<string> {
  const result = await podman(["logs", name]);
  return `${result.stdout}${result.stderr}`;
}

/**
 * Waits until the container on this machine's network answers `/healthz` with 200, polled from
 * here (a poll through `podman healthcheck run` would start a Node inside the container each time,
 * slowing the start it measures), then runs the image's own HEALTHCHECK once; answers the
 * milliseconds from `startedAt` to the first healthy answer. Fails with the container's output
 * when the container ends first or `timeoutMs` passes.
 */
export async function waitUntilHealthy(
  name: string,
  port: number,
  startedAt: number,
  timeoutMs = 180_000,
): Promise<number> {
  for (;;) {
    const status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) {
      const healthy = Date.now() - startedAt;
      const check = await podman(["healthcheck", "run", name]);
      if (check.code !== 0) throw new Error(`the image's HEALTHCHECK failed:\n${check.stdout}\n${check.stderr}`);
      return healthy;
    }
    const running = (await podman(["inspect", "--format", "{{.State.Running}}", name])).stdout.trim();
    if (running !== "true" || Date.now() - startedAt > timeoutMs) {
      throw new Error(`${name} did not become healthy (running: ${running}):\n${await containerLogs(name)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Stops a container as a container engine does (SIGTERM, SIGKILL after `timeoutSeconds`); answers its exit code. */
export async function stopContainer(name: string, timeoutSeconds: number): Promise<number> {
  await podmanOk(["stop", "--time", String(timeoutSeconds), name], { timeoutMs: (timeoutSeconds + 30) * 1000 });
  return Number((await podmanOk(["inspect", "--format", "{{.State.ExitCode}}", name])).trim());
}
