import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  bundleConfig,
  callRpc,
  createTestIdentity,
  expectInputIssue,
  type SmtpSink,
  startSmtpSink,
  startTestPlatform,
  type TestIdentity,
  type TestPlatform,
} from "@weft/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rotateWebhookSecrets } from "../src/alerts/rotate-webhook-secrets.ts";
import { readWebhookSecret } from "../src/alerts/webhook-secrets.ts";
import { alertDeliveries, alertWebhookSecrets, deployments } from "../src/db/schema/index.ts";
import { integrationKeyring } from "../src/integrations/secret-sealing.ts";
import { createManualClock } from "../src/shared/clock.ts";

interface ReceivedPost {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A real HTTP receiver on 127.0.0.1: keeps every request, answers with the next queued status (200 once empty). */
interface Receiver {
  port: number;
  posts: ReceivedPost[];
  answers: number[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const posts: ReceivedPost[] = [];
  const answers: number[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      posts.push({ path: request.url ?? "", headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      response.writeHead(answers.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    posts,
    answers,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const configSource = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({
      name: "breaks",
      retries: { maxAttempts: 1 },
      async run() {
        throw new Error("the ledger is out of balance");
      },
    }),
  ],
});
`;

const breaksWorkflow = { name: "breaks", retries: { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 } };

let weft: TestPlatform;
let owner: TestIdentity;
let smtp: SmtpSink;
let receiver: Receiver;
let bundle: string;

async function call<T>(procedure: string, input: unknown): Promise<{ status: number; json: T }> {
  const result = await callRpc(weft.url, procedure, input, { token: owner.credential });
  return { status: result.status, json: result.json as T };
}

async function newProject(name: string): Promise<string> {
  return (await call<{ id: string }>("projects.create", { name })).json.id;
}

type Deployed = { id: string; alertSecrets?: { url: string; secret: string }[] };

function deploy(projectId: string, alerts: unknown) {
  return call<Deployed>("deployments.create", {
    projectId,
    manifest: { version: 1, workflows: [breaksWorkflow], alerts },
    bundle,
  });
}

/** Starts an execution of `breaks` and waits until it has failed. */
async function failOnce(projectId: string): Promise<string> {
  const started = await call<{ executionId: string }>("workflows.run", { projectId, workflow: "breaks", input: {} });
  expect(started.status).toBe(200);
  const { executionId } = started.json;
  await expect
    .poll(async () => (await call<{ status: string }>("workflows.getExecution", { executionId })).json.status, {
      timeout: 30_000,
    })
    .toBe("failed");
  return executionId;
}

async function dispatch(): Promise<void> {
  await weft.platform.periodicJobs?.dispatchAlerts();
}

function advance(ms: number): void {
  weft.clock.set(new Date(weft.clock.now().getTime() + ms));
}

function deliveriesOf(projectId: string) {
  return weft.database.db
    .select()
    .from(alertDeliveries)
    .where(eq(alertDeliveries.projectId, projectId))
    .orderBy(alertDeliveries.createdAt, alertDeliveries.id);
}

function hookUrl(path: string): string {
  return `http://127.0.0.1:${receiver.port}${path}`;
}

function postsTo(path: string): ReceivedPost[] {
  return receiver.posts.filter((post) => post.path === path);
}

beforeAll(async () => {
  smtp = await startSmtpSink();
  receiver = await startReceiver();
  weft = await startTestPlatform({
    clock: createManualClock(new Date("2026-06-01T09:00:00.000Z")),
    env: { SMTP_URL: smtp.url, WEFT_SANDBOX_EGRESS_ALLOW: `127.0.0.1:${receiver.port}` },
    configure: (parsed) => ({ ...parsed, worker: { ...parsed.worker, pollIntervalMs: 25 } }),
  });
  owner = await createTestIdentity(weft, "alerts@example.com");
  bundle = await bundleConfig(configSource);
});

afterAll(async () => {
  await weft?.stop();
  await receiver?.close();
  await smtp?.close();
});

describe("failure notices", () => {
  it("mails each address of a mail alert when an execution fails, with the error and its count", async () => {
    const projectId = await newProject("Mailed");
    expect((await deploy(projectId, [{ on: "failed", mail: ["ops@example.com", "oncall@example.com"] }])).status).toBe(
      200,
    );
    const executionId = await failOnce(projectId);
    await dispatch();
    for (const to of ["ops@example.com", "oncall@example.com"]) {
      const mail = smtp.received.find((message) => message.to.includes(to) && message.raw.includes(executionId));
      expect(mail?.raw).toContain("Subject: [Weft] breaks failed in Mailed (1 failure)");
      expect(mail?.raw).toContain("the ledger is out of balance");
      expect(mail?.raw).toContain(`${executionId}, which failed with Error: the ledger is out of balance`);
      expect(mail?.raw).not.toContain("Error: Error:");
    }
    const delivered = await deliveriesOf(projectId);
    expect(delivered.map(({ target, status, attempts, failures }) => ({ target, status, attempts, failures }))).toEqual(
      [
        { target: "ops@example.com", status: "sent", attempts: 1, failures: 1 },
        { target: "oncall@example.com", status: "sent", attempts: 1, failures: 1 },
      ],
    );
  });

  it("posts a signed notice to a webhook alert; its secret is shown by the first deploy only", async () => {
    const projectId = await newProject("Hooked");
    const url = hookUrl("/signed");
    const first = await deploy(projectId, [{ on: "failed", webhook: url }]);
    expect(first.status).toBe(200);
    const [shown] = first.json.alertSecrets ?? [];
    expect(shown?.url).toBe(url);
    expect(shown?.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const second = await deploy(projectId, [{ on: "failed", webhook: url }]);
    expect(second.status).toBe(200);
    expect(second.json.alertSecrets).toBeUndefined();
    const [stored] = await weft.database.db
      .select()
      .from(alertWebhookSecrets)
      .where(eq(alertWebhookSecrets.projectId, projectId));
    expect(stored?.sealed).not.toContain(shown?.secret ?? "");

    const executionId = await failOnce(projectId);
    await dispatch();
    const [post] = postsTo("/signed");
    expect(post).toBeDefined();
    const signature = String(post?.headers["x-weft-signature"]);
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(signature) ?? [];
    expect(Number(t)).toBe(Math.floor(weft.clock.now().getTime() / 1000));
    const expected = createHmac("sha256", shown?.secret ?? "")
      .update(`${t}.${post?.body}`)
      .digest("hex");
    expect(v1).toBe(expected);
    expect(post?.headers["content-type"]).toBe("application/json");
    const notice = JSON.parse(post?.body ?? "");
    // The bundle's own file: where in the deployed source the error was thrown.
    const location = notice.lastExecution?.error?.location as string;
    expect(location).toMatch(/^[\w.-]+\.m?[jt]s:\d+:\d+$/);
    expect(notice).toEqual({
      project: { id: projectId, name: "Hooked" },
      workflow: "breaks",
      failures: 1,
      firstFailureAt: weft.clock.now().toISOString(),
      lastFailureAt: weft.clock.now().toISOString(),
      lastExecution: {
        id: executionId,
        error: {
          name: "Error",
          message: "the ledger is out of balance",
          location,
          description: `the ledger is out of balance (at ${location})`,
        },
      },
    });
  });

  it("sends at most one notice per workflow per 5 minutes, the next one counting the failures it stands for", async () => {
    const projectId = await newProject("Windowed");
    const deployed = await deploy(projectId, [{ on: "failed", webhook: hookUrl("/windowed") }]);
    expect(deployed.status).toBe(200);
    await failOnce(projectId);
    await dispatch();
    expect(postsTo("/windowed")).toHaveLength(1);
    const firstNoticeAt = weft.clock.now();

    advance(60_000);
    const second = await failOnce(projectId);
    const secondAt = weft.clock.now().toISOString();
    advance(60_000);
    const third = await failOnce(projectId);
    const thirdAt = weft.clock.now().toISOString();
    await dispatch();
    expect(postsTo("/windowed")).toHaveLength(1);

    weft.clock.set(new Date(firstNoticeAt.getTime() + 5 * 60_000 - 1));
    await dispatch();
    expect(postsTo("/windowed")).toHaveLength(1);

    weft.clock.set(new Date(firstNoticeAt.getTime() + 5 * 60_000));
    await dispatch();
    const posts = postsTo("/windowed");
    expect(posts).toHaveLength(2);
    expect(JSON.parse(posts[1]?.body ?? "")).toMatchObject({
      failures: 2,
      firstFailureAt: secondAt,
      lastFailureAt: thirdAt,
      lastExecution: { id: third },
    });
    expect(second).not.toBe(third);
    expect((await deliveriesOf(projectId)).map((delivery) => delivery.failures)).toEqual([1, 2]);
  });

  it("retries a delivery the receiver refused, after 30 s, and records each try", async () => {
    const projectId = await newProject("Retried");
    await deploy(projectId, [{ on: "failed", webhook: hookUrl("/flaky") }]);
    receiver.answers.push(500);
    await failOnce(projectId);
    await dispatch();
    expect(postsTo("/flaky")).toHaveLength(1);
    const triedAt = weft.clock.now();
    const [pending] = await deliveriesOf(projectId);
    expect(pending).toMatchObject({ status: "pending", attempts: 1, lastError: "answered 500", sentAt: null });
    expect(pending?.nextAttemptAt?.toISOString()).toBe(new Date(triedAt.getTime() + 30_000).toISOString());

    advance(29_999);
    await dispatch();
    expect(postsTo("/flaky")).toHaveLength(1);

    advance(1);
    await dispatch();
    expect(postsTo("/flaky")).toHaveLength(2);
    const [sent] = await deliveriesOf(projectId);
    expect(sent).toMatchObject({ status: "sent", attempts: 2, lastError: null, nextAttemptAt: null });
    expect(sent?.sentAt?.toISOString()).toBe(weft.clock.now().toISOString());
  });

  it("refuses to post to a loopback address the operator did not allow, and gives up at once", async () => {
    const projectId = await newProject("Loopback");
    const refusedUrl = `http://localhost:${receiver.port + 1}/hook`;
    expect((await deploy(projectId, [{ on: "failed", webhook: refusedUrl }])).status).toBe(200);
    await failOnce(projectId);
    await dispatch();
    const [delivery] = await deliveriesOf(projectId);
    expect(delivery).toMatchObject({ status: "failed", attempts: 1, nextAttemptAt: null });
    expect(delivery?.lastError).toMatch(/is a loopback address/);
  });

  describe("refuses bad alert definitions at deploy, naming the alert, and stores nothing", () => {
    const refusals: [string, unknown, (string | number)[], RegExp][] = [
      [
        "a bad address",
        [{ on: "failed", mail: ["ops@example.com", "not-an-address"] }],
        ["manifest", "alerts", 0, "mail", 1],
        /^alert 1 \(mail\): "not-an-address" is not an email address$/,
      ],
      [
        "a non-http(s) URL",
        [
          { on: "failed", mail: ["a@example.com"] },
          { on: "failed", webhook: "ftp://example.com/x" },
        ],
        ["manifest", "alerts", 1, "webhook"],
        /^alert 2 \(webhook\): "ftp:\/\/example\.com\/x" is not an http\(s\) URL$/,
      ],
      [
        "a private address",
        [{ on: "failed", webhook: "http://10.1.2.3/hook" }],
        ["manifest", "alerts", 0, "webhook"],
        /^alert 1 \(webhook\): 10\.1\.2\.3 is a private address; notices are posted to public addresses only$/,
      ],
      [
        "a metadata address",
        [{ on: "failed", webhook: "http://169.254.169.254/latest" }],
        ["manifest", "alerts", 0, "webhook"],
        /^alert 1 \(webhook\): 169\.254\.169\.254 is a link-local address/,
      ],
      [
        "too many alerts",
        Array.from({ length: 11 }, (_, index) => ({ on: "failed", mail: [`a${index}@example.com`] })),
        ["manifest", "alerts"],
        /^at most 10 alerts are accepted$/,
      ],
      [
        "too many recipients",
        [{ on: "failed", mail: Array.from({ length: 21 }, (_, index) => `r${index}@example.com`) }],
        ["manifest", "alerts", 0, "mail"],
        /^alert 1 \(mail\): 21 recipients; at most 20 are accepted$/,
      ],
      [
        "an unknown event",
        [{ on: "succeeded", mail: ["a@example.com"] }],
        ["manifest", "alerts", 0],
        /^an alert is \{ on: "failed", mail: /,
      ],
    ];

    it.each(refusals)("%s", async (_what, alerts, path, message) => {
      const projectId = await newProject(`Refused ${_what}`);
      const before = await weft.database.db.select({ id: deployments.id }).from(deployments);
      const refused = await deploy(projectId, alerts);
      expectInputIssue(refused, path, message);
      expect(await weft.database.db.select({ id: deployments.id }).from(deployments)).toEqual(before);
      expect(
        await weft.database.db.select().from(alertWebhookSecrets).where(eq(alertWebhookSecrets.projectId, projectId)),
      ).toEqual([]);
    });
  });

  // Last: it re-seals every project's webhook secrets under a key the running platform does not hold.
  it("rotate-secret-key's re-sealing takes the webhook secrets along", async () => {
    const projectId = await newProject("Rotated");
    const url = "https://hooks.example.com/rotated";
    const [shown] = (await deploy(projectId, [{ on: "failed", webhook: url }])).json.alertSecrets ?? [];
    const oldKey = weft.platform.context.config.secretKey;
    const newKey = Buffer.alloc(32, 0xc3);
    const during = integrationKeyring({ secretKey: newKey, secretKeyPrevious: oldKey });
    const rotated = await rotateWebhookSecrets(weft.database.db, during, { batchSize: 2 });
    expect(rotated.unopenable).toBe(0);
    expect(rotated.resealed).toBeGreaterThanOrEqual(1);
    const onlyNew = integrationKeyring({ secretKey: newKey });
    expect(await readWebhookSecret(weft.database.db, onlyNew, { projectId, url })).toBe(shown?.secret);
    expect(
      await readWebhookSecret(weft.database.db, integrationKeyring({ secretKey: oldKey }), { projectId, url }),
    ).toBe(undefined);
    expect(await rotateWebhookSecrets(weft.database.db, onlyNew, { batchSize: 2 })).toEqual({
      resealed: 0,
      unopenable: 0,
    });
  });
});
