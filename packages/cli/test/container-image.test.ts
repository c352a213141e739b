import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  claimCodeOf,
  createEmptyServerDatabase,
  decide,
  emailRegistration,
  freePort,
  postJson,
  startSmtpSink,
} from "@weft/testing";
import { afterAll, describe, expect, it } from "vitest";
import { containerLogs, podman, podmanOk, stopContainer, waitUntilHealthy } from "./support/podman.ts";
import { parseJson, runCli } from "./support/run-cli.ts";

const repository = fileURLToPath(new URL("../../..", import.meta.url));
const image = "localhost/weft:test-image";
/** The base image: a Node 24 image on Debian when a registry is reachable, else one made here (make-base.sh). */
const base = process.env.WEFT_IMAGE_BASE ?? "localhost/weft-test-base:node24";
const baseCache = process.env.WEFT_IMAGE_BASE_CACHE ?? "/var/tmp/weft-test-image";
const serverUrl = process.env.WEFT_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
/** The README's flags for bubblewrap inside a container, as compose.yaml sets them. */
const sandboxFlags = [
  "--security-opt",
  `seccomp=${join(repository, "deploy/seccomp-weft.json")}`,
  "--security-opt",
  "systempaths=unconfined",
];
/** What the containers share with this machine: its loopback (PostgreSQL, the SMTP sink, their ports). */
const hostNetwork = ["--network", "host"];
const stopTimeoutSeconds = 30;

const run = randomBytes(4).toString("hex");
const containers: string[] = [];
const figures: Record<string, string> = {};

function containerName(role: string): string {
  const name = `weft-test-${role}-${run}`;
  containers.push(name);
  return name;
}

afterAll(async () => {
  for (const name of containers) await podman(["rm", "--force", "--volumes", name]);
  console.log(
    `Image figures: ${Object.entries(figures)
      .map(([what, value]) => `${what} ${value}`)
      .join("; ")}`,
  );
});

async function health(port: number): Promise<unknown> {
  return (await fetch(`http://127.0.0.1:${port}/healthz`)).json();
}

// Builds the image and runs containers: minutes, and podman as root. `npm run test:image` runs it.
describe.runIf(process.env.WEFT_TEST_IMAGE === "1")("the container image", () => {
  it("builds from the Containerfile on a Node 24 base, with a small context", async () => {
    if (process.env.WEFT_IMAGE_BASE === undefined) {
      execFileSync("bash", [join(repository, "deploy/test-image/make-base.sh"), base, baseCache], {
        stdio: "inherit",
        timeout: 900_000,
      });
    }
    const started = Date.now();
    await podmanOk(
      [
        "build",
        "--format",
        "docker",
        ...hostNetwork,
        "--build-arg",
        `BASE_IMAGE=${base}`,
        "--tag",
        image,
        "--file",
        join(repository, "Containerfile"),
        repository,
      ],
      { timeoutMs: 900_000 },
    );
    figures.build = `${((Date.now() - started) / 1000).toFixed(0)} s`;
    const [size, baseSize] = await Promise.all(
      [image, base].map(async (name) =>
        Number((await podmanOk(["image", "inspect", "--format", "{{.Size}}", name])).trim()),
      ),
    );
    figures["image size"] = `${((size ?? 0) / 1e6).toFixed(0)} MB (base ${((baseSize ?? 0) / 1e6).toFixed(0)} MB)`;
    const [inspected] = JSON.parse(await podmanOk(["image", "inspect", image])) as {
      Config: { User: string; Env: string[]; Cmd: string[]; Volumes: object };
      Healthcheck?: { Test: string[] };
    }[];
    expect(inspected?.Config.User).toBe("weft");
    expect(inspected?.Healthcheck?.Test.join(" ")).toContain("/healthz");
    expect(inspected?.Config.Env).toContain("WEFT_SANDBOX=bwrap");
    expect(inspected?.Config.Cmd).toEqual(["node", "packages/server/src/main.ts"]);
    expect(Object.keys(inspected?.Config.Volumes ?? {})).toEqual(["/var/lib/weft"]);
    // The sources are in, the repository's tests and tools are not.
    const listing = async (directory: string) =>
      (await podmanOk(["run", "--rm", "--entrypoint", "ls", image, directory])).trim().split("\n");
    expect(await listing("packages")).toEqual(["contract", "server"]);
    expect(await listing("packages/server")).toEqual(["drizzle", "package.json", "src", "studio-dist"]);
    expect(await listing("packages/contract")).toEqual(["package.json", "src"]);
  }, 1_800_000);

  it("refuses to start without the sandbox's flags, naming them and WEFT_SANDBOX=process", async () => {
    const refused = await podman([
      "run",
      "--rm",
      ...hostNetwork,
      "--env",
      `PORT=${await freePort()}`,
      "--env",
      "WEFT_DEV_MAILBOX=off",
      image,
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("weft: cannot start: WEFT_SANDBOX=bwrap but bubblewrap does not work here");
    expect(refused.stderr).toContain("--security-opt seccomp=seccomp-weft.json --security-opt systempaths=unconfined");
    expect(refused.stderr).toContain("or set WEFT_SANDBOX=process");
  }, 120_000);

  it("starts the embedded default with the flags, healthy with bubblewrap, and stops on SIGTERM with exit code 0", async () => {
    const port = await freePort();
    const name = containerName("embedded");
    const started = Date.now();
    await podmanOk([
      "run",
      "--detach",
      "--name",
      name,
      ...hostNetwork,
      ...sandboxFlags,
      "--env",
      `PORT=${port}`,
      "--env",
      "WEFT_DEV_MAILBOX=on",
      image,
    ]);
    figures["cold start, embedded"] = `${((await waitUntilHealthy(name, port, started)) / 1000).toFixed(1)} s`;
    expect(await health(port)).toMatchObject({ status: "ok", sandbox: { mode: "bwrap", egress: "public" } });
    expect(await containerLogs(name)).toContain("data: embedded database in /var/lib/weft; sandbox: bubblewrap");
    const stopping = Date.now();
    expect(await stopContainer(name, stopTimeoutSeconds)).toBe(0);
    figures["stop, embedded"] = `${((Date.now() - stopping) / 1000).toFixed(1)} s`;
    // Again on the same volume: the database is there, only the process starts.
    const restarted = Date.now();
    await podmanOk(["start", name]);
    figures["restart, embedded"] = `${((await waitUntilHealthy(name, port, restarted)) / 1000).toFixed(1)} s`;
    expect(await stopContainer(name, stopTimeoutSeconds)).toBe(0);
  }, 400_000);

  it("runs compose.yaml's two roles on PostgreSQL: an agent deploys with the CLI, a webhook's workflow succeeds in the worker's sandbox", async () => {
    const compose = readFileSync(join(repository, "compose.yaml"), "utf8");
    for (const line of [
      "WEFT_ROLES: api,auth,ingress",
      "WEFT_ROLES: worker",
      "replicas: 2",
      "- seccomp=deploy/seccomp-weft.json",
      "- systempaths=unconfined",
    ]) {
      expect(compose, "compose.yaml runs what this test runs").toContain(line);
    }
    // A database of its own on the machine's server, empty: the containers migrate it.
    const database = await createEmptyServerDatabase(serverUrl);
    const smtp = await startSmtpSink();
    const directory = mkdtempSync(join(tmpdir(), "weft-image-project-"));
    try {
      const [apiPort, workerPort] = [await freePort(), await freePort()];
      const baseUrl = `http://127.0.0.1:${apiPort}`;
      const shared = [
        `DATABASE_URL=${database.url}`,
        `WEFT_SECRET_KEY=${randomBytes(32).toString("hex")}`,
        `WEFT_BASE_URL=${baseUrl}`,
        `SMTP_URL=${smtp.url}`,
      ].flatMap((setting) => ["--env", setting]);
      const start = async (role: string, roles: string, port: number) => {
        const name = containerName(role);
        const started = Date.now();
        await podmanOk([
          "run",
          "--detach",
          "--name",
          name,
          ...hostNetwork,
          ...sandboxFlags,
          ...shared,
          "--env",
          `WEFT_ROLES=${roles}`,
          "--env",
          `PORT=${port}`,
          image,
        ]);
        return { name, started };
      };
      // Both at once, as compose starts them: the migrations run once, under the advisory lock.
      const api = await start("api", "api,auth,ingress", apiPort);
      const worker = await start("worker", "worker", workerPort);
      figures["cold start, api on PostgreSQL"] =
        `${((await waitUntilHealthy(api.name, apiPort, api.started)) / 1000).toFixed(1)} s`;
      figures["cold start, worker on PostgreSQL"] =
        `${((await waitUntilHealthy(worker.name, workerPort, worker.started)) / 1000).toFixed(1)} s`;
      expect(await health(apiPort)).toEqual({ status: "ok" });
      expect(await health(workerPort)).toMatchObject({ status: "ok", sandbox: { mode: "bwrap", egress: "public" } });

      // An agent registers for a person, who approves it from the mail.
      const email = `operator-${run}@example.com`;
      const registered = await postJson(`${baseUrl}/agent/auth`, emailRegistration(email));
      expect(registered.status).toBe(201);
      const approved = await decide(smtp.approvalLinkFor(email), "approve");
      const claimed = await postJson(`${baseUrl}/agent/auth/claim/complete`, {
        claim_token: registered.body.claim_token,
        otp: claimCodeOf(approved.html),
      });
      expect(claimed.status).toBe(200);
      const env = { WEFT_TOKEN: String(claimed.body.credential), WEFT_API_URL: baseUrl };

      // The CLI on this machine deploys a new project to the containers.
      expect((await runCli(["init", directory])).code).toBe(0);
      const deployed = await runCli(["deploy", "--create", "--name", "image", "--json"], { cwd: directory, env });
      expect(deployed.code, deployed.stderr).toBe(0);
      const { projectId } = parseJson<{ projectId: string }>(deployed);

      const called = await fetch(`${baseUrl}/triggers/webhooks/${projectId}/incoming`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"name":"Ada"}',
      });
      expect(called.status).toBe(202);
      const {
        executionIds: [executionId],
      } = (await called.json()) as { executionIds: string[] };
      const watched = await runCli(["executions", "watch", String(executionId), "--json"], { cwd: directory, env });
      expect(watched.code, watched.stderr).toBe(0);
      expect(parseJson(watched)).toMatchObject({ status: "succeeded", output: { greeting: "Hello, Ada!" } });

      for (const container of [api, worker]) {
        const stopping = Date.now();
        expect(await stopContainer(container.name, stopTimeoutSeconds)).toBe(0);
        figures[`stop, ${container.name.split("-")[2]}`] = `${((Date.now() - stopping) / 1000).toFixed(1)} s`;
      }
    } finally {
      await smtp.close();
      await database.drop();
      rmSync(directory, { recursive: true, force: true });
    }
  }, 600_000);
});
