import {
  bundleConfig,
  callRpc,
  capturedLogger,
  createTestIdentity,
  executionRow,
  formCsrfTokenOf,
  gatedConfigPreamble,
  hasChromium,
  launchChromium,
  openGate,
  randomTokenId,
  signedInTestPlatform,
  type TestIdentity,
  untilExecutionStatus,
} from "@weft/testing";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { spans } from "../src/db/schema/index.ts";

/**
 * Wait tokens end to end: workflows that wait, completed through each of the three ways (public
 * POST, `workflows.completeToken`, the page's Approve/Reject), a timeout, a cancel, and the
 * refusals. Time passes on the platform's manual clock only.
 */

const { logger, lines: logLines } = capturedLogger("info");
const signedIn = signedInTestPlatform("owner@example.com", {
  logger,
  configure: (parsed) => ({ ...parsed, worker: { ...parsed.worker, pollIntervalMs: 25 } }),
});
let stranger: TestIdentity;
let projectId: string;
let deploymentId: string;

const source = `${gatedConfigPreamble}
import { defineConfig, workflow } from "@weft/sdk";

export default defineConfig({
  workflows: [
    workflow({
      name: "approval",
      async run(_input: unknown, ctx) {
        const token = await ctx.createToken("approval", { timeout: "1d" });
        await ctx.step("ask", () => token.url);
        const answer = await ctx.waitForToken("approval");
        // On the resumed run, the token is the one created before the wait.
        return { answer, url: token.url };
      },
    }),
    workflow({
      name: "early",
      async run(_input: unknown, ctx) {
        const token = await ctx.createToken("early", { timeout: "1h" });
        await ctx.step("ask", () => token.url);
        await ctx.step("hold", () => gate("early"));
        ctx.log.info("about to wait");
        return ctx.waitForToken("early");
      },
    }),
    workflow({
      name: "too-long",
      retries: { maxAttempts: 1 },
      async run(_input: unknown, ctx) {
        return ctx.waitForToken("forever", { timeout: "31d" });
      },
    }),
  ],
});
`;

const manifest = {
  version: 1,
  workflows: [
    { name: "approval" },
    { name: "early" },
    { name: "too-long", retries: { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 } },
  ],
};

interface ExecutionJson {
  id: string;
  status: string;
  output: unknown;
  error: { name: string; message: string } | null;
  traceId: string;
  steps: { name: string; output: unknown }[];
  logs: { message: string }[];
  tokens: { name: string; status: string; createdAt: string; expiresAt: string; finishedAt: string | null }[];
  attempts: { number: number; resumed: boolean; status: string }[];
}

async function call<T>(procedure: string, input: unknown, token = signedIn.identity.credential) {
  const result = await callRpc(signedIn.weft.url, procedure, input, { token });
  return { status: result.status, json: result.json as T };
}

async function execution(executionId: string): Promise<ExecutionJson> {
  return (await call<ExecutionJson>("workflows.getExecution", { executionId })).json;
}

function until(executionId: string, statuses: string[]): Promise<ExecutionJson> {
  return untilExecutionStatus<ExecutionJson>(signedIn.weft.url, signedIn.identity.credential, executionId, statuses);
}

/** Starts the approval workflow and returns its execution, waiting, with the token's URL. */
async function waitingApproval(): Promise<{ executionId: string; url: string }> {
  const ran = await call<{ executionId: string }>("workflows.run", { projectId, workflow: "approval", input: {} });
  const { executionId } = ran.json;
  const waiting = await until(executionId, ["waiting"]);
  const url = waiting.steps.find((step) => step.name === "ask")?.output;
  if (typeof url !== "string") throw new Error("the workflow stored no URL");
  return { executionId, url };
}

function postJson(url: string, body: string) {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
}

async function tokenSpans(traceId: string) {
  const rows = await signedIn.weft.database.db.select().from(spans).where(eq(spans.traceId, traceId));
  return rows.filter((span) => span.kind === "token");
}

beforeAll(async () => {
  stranger = await createTestIdentity(signedIn.weft, "stranger@example.com");
  projectId = (await call<{ id: string }>("projects.create", { name: "Approvals" })).json.id;
  const deployed = await call<{ id: string }>("deployments.create", {
    projectId,
    manifest,
    bundle: await bundleConfig(source),
  });
  expect(deployed.status).toBe(200);
  deploymentId = deployed.json.id;
});

describe("a token completed by a public POST", () => {
  it("resumes the waiting execution once with the body as data; a second POST is 409 and changes nothing", async () => {
    const { executionId, url } = await waitingApproval();
    expect(url).toMatch(new RegExp(`^${signedIn.weft.url}/triggers/tokens/wtk_[A-Za-z0-9_-]{43}$`));
    const waiting = await execution(executionId);
    // Waiting holds no worker: the lease is released.
    expect(await executionRow(signedIn.weft, executionId)).toMatchObject({ status: "waiting", leaseOwner: null });
    expect(waiting.tokens).toEqual([
      expect.objectContaining({ name: "approval", status: "pending", finishedAt: null }),
    ]);
    expect(JSON.stringify(waiting.tokens)).not.toContain(url.split("/").at(-1));

    const completed = await postJson(url, JSON.stringify({ approved: true, by: "ada" }));
    expect(completed.status).toBe(202);
    expect(await completed.json()).toEqual({ message: "Token completed." });

    const done = await until(executionId, ["succeeded", "failed"]);
    expect(done.output).toEqual({ answer: { ok: true, data: { approved: true, by: "ada" } }, url });
    expect(done.steps.map((step) => step.name)).toEqual(["ask"]);
    expect(done.attempts.map((attempt) => [attempt.number, attempt.resumed])).toEqual([
      [1, false],
      [1, true],
    ]);
    expect(done.tokens.find((token) => token.name === "approval")?.status).toBe("completed");
    const [span] = (await tokenSpans(done.traceId)).filter((row) => row.name === "token approval");
    expect(span).toMatchObject({ statusCode: "ok" });
    expect(span?.endTime).not.toBeNull();

    const again = await postJson(url, JSON.stringify({ approved: false }));
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: "conflict" });
    const after = await execution(executionId);
    expect(after.attempts).toHaveLength(2);
    expect(after.output).toEqual(done.output);
  });
});

describe("a token completed through RPC", () => {
  it("needs projects:write on the token's project, resumes the execution, then answers CONFLICT", async () => {
    const { executionId, url } = await waitingApproval();
    const tokenId = url.split("/").at(-1) ?? "";

    const foreign = await call<{ code: string }>("workflows.completeToken", { tokenId, data: 1 }, stranger.credential);
    expect(foreign.status).toBe(404);
    const missing = await call<{ code: string }>(
      "workflows.completeToken",
      { tokenId: randomTokenId(), data: 1 },
      stranger.credential,
    );
    expect(missing).toEqual(foreign);
    expect((await execution(executionId)).status).toBe("waiting");

    const completed = await call<{ executionId: string; status: string }>("workflows.completeToken", {
      tokenId,
      data: { approved: true, note: "via rpc" },
    });
    expect(completed).toEqual({ status: 200, json: { executionId, status: "completed" } });
    const done = await until(executionId, ["succeeded", "failed"]);
    expect((done.output as { answer: unknown }).answer).toEqual({
      ok: true,
      data: { approved: true, note: "via rpc" },
    });

    const twice = await call<{ code: string }>("workflows.completeToken", { tokenId, data: {} });
    expect(twice.status).toBe(409);
    expect(twice.json.code).toBe("CONFLICT");
    expect((await execution(executionId)).attempts).toHaveLength(2);
  });
});

describe("the token's page", () => {
  it("shows Approve and Reject without changing anything, and Approve completes the token with its CSRF token", async () => {
    const { executionId, url } = await waitingApproval();
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("no-store");
    const html = await page.text();
    expect(html).toContain('value="approve"');
    expect(html).toContain('value="reject"');
    expect((await execution(executionId)).tokens[0]?.status).toBe("pending");

    const post = (body: string) =>
      fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });
    expect((await post("decision=approve")).status).toBe(403);
    expect((await post(`_csrf=${"1".repeat(13)}.${"a".repeat(22)}.${"b".repeat(43)}&decision=approve`)).status).toBe(
      403,
    );
    const csrf = formCsrfTokenOf(html);
    expect((await post(`_csrf=${encodeURIComponent(csrf)}&decision=maybe`)).status).toBe(400);
    expect((await execution(executionId)).status).toBe("waiting");

    const approved = await post(`_csrf=${encodeURIComponent(csrf)}&decision=approve`);
    expect(approved.status).toBe(200);
    expect(await approved.text()).toContain("Approved");
    const done = await until(executionId, ["succeeded", "failed"]);
    expect((done.output as { answer: unknown }).answer).toEqual({ ok: true, data: { approved: true } });

    const afterwards = await fetch(url);
    expect(afterwards.status).toBe(409);
    expect((await post(`_csrf=${encodeURIComponent(csrf)}&decision=reject`)).status).toBe(409);
  });

  it("Reject completes the token with approved: false; another token's page's CSRF token is refused", async () => {
    const first = await waitingApproval();
    const second = await waitingApproval();
    const csrfOfFirst = formCsrfTokenOf(await (await fetch(first.url)).text());
    const post = (url: string, csrf: string) =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `_csrf=${encodeURIComponent(csrf)}&decision=reject`,
      });
    expect((await post(second.url, csrfOfFirst)).status).toBe(403);
    const rejected = await post(first.url, csrfOfFirst);
    expect(rejected.status).toBe(200);
    expect(await rejected.text()).toContain("Rejected");
    const done = await until(first.executionId, ["succeeded", "failed"]);
    expect((done.output as { answer: unknown }).answer).toEqual({ ok: true, data: { approved: false } });
    expect((await execution(second.executionId)).status).toBe("waiting");
    await call("workflows.cancelExecution", { executionId: second.executionId });
  });
});

describe("a token completed before the workflow waits for it", () => {
  it("is answered at once: the execution never waits and runs one attempt", async () => {
    const ran = await call<{ executionId: string }>("workflows.run", { projectId, workflow: "early", input: {} });
    const { executionId } = ran.json;
    let url: unknown;
    const deadline = Date.now() + 20_000;
    while (url === undefined) {
      if (Date.now() > deadline) throw new Error("the workflow stored no URL");
      url = (await execution(executionId)).steps.find((step) => step.name === "ask")?.output;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect((await execution(executionId)).status).toBe("running");
    expect((await postJson(String(url), '{"early": true}')).status).toBe(202);
    openGate(signedIn.weft.platform.context.config.dataDir, deploymentId, "early");
    const done = await until(executionId, ["succeeded", "failed"]);
    expect(done.output).toEqual({ ok: true, data: { early: true } });
    expect(done.attempts.map((attempt) => [attempt.number, attempt.resumed])).toEqual([[1, false]]);
    expect(done.tokens.map((token) => token.status)).toEqual(["completed"]);
    expect(done.logs.map((line) => line.message)).toEqual(["about to wait"]);
  });
});

describe("timeouts and cancels", () => {
  it("resumes with a timeout once the token's time has passed; the token is then not found", async () => {
    const { executionId, url } = await waitingApproval();
    signedIn.weft.clock.advance(24 * 60 * 60 * 1000 + 1000);
    const done = await until(executionId, ["succeeded", "failed"]);
    expect((done.output as { answer: unknown }).answer).toEqual({ ok: false, reason: "timeout" });
    expect(done.tokens.find((token) => token.name === "approval")?.status).toBe("timed_out");
    const [span] = (await tokenSpans(done.traceId)).filter((row) => row.name === "token approval");
    expect(span).toMatchObject({ statusCode: "error", statusMessage: "timeout" });

    const late = await postJson(url, "{}");
    expect(late.status).toBe(404);
    expect(await late.json()).toMatchObject({ error: "not_found" });
    expect((await fetch(url)).status).toBe(404);
  });

  it("cancels a waiting execution at once; its token is closed and can no longer be completed", async () => {
    const { executionId, url } = await waitingApproval();
    const cancelled = await call<{ status: string }>("workflows.cancelExecution", { executionId });
    expect(cancelled.json.status).toBe("cancelled");
    const row = await execution(executionId);
    expect(row.status).toBe("cancelled");
    expect(row.tokens[0]?.status).toBe("closed");
    // One update ends the execution's span and its token's, each with its own status.
    const traceSpans = await signedIn.weft.database.db.select().from(spans).where(eq(spans.traceId, row.traceId));
    const ended = (kind: string) => traceSpans.filter((span) => span.kind === kind);
    expect(ended("token")).toMatchObject([{ statusCode: "error", statusMessage: "the execution ended" }]);
    expect(ended("execution")).toMatchObject([
      { statusCode: "error", statusMessage: "the execution was cancelled", endTime: expect.any(Date) },
    ]);
    expect(ended("token")[0]?.endTime).toEqual(ended("execution")[0]?.endTime);
    expect((await postJson(url, "{}")).status).toBe(404);
  });
});

describe("refusals", () => {
  it("refuses a body over 256 KiB with 413, broken JSON with 400, and an unknown or malformed id with 404", async () => {
    const { executionId, url } = await waitingApproval();
    const big = await postJson(url, JSON.stringify({ blob: "x".repeat(256 * 1024) }));
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: "payload_too_large" });
    const broken = await postJson(url, "{nope");
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: "invalid_body" });
    const nul = await postJson(url, JSON.stringify({ a: "\u0000" }));
    expect(nul.status).toBe(400);
    expect((await postJson(`${signedIn.weft.url}/triggers/tokens/${randomTokenId()}`, "{}")).status).toBe(404);
    expect((await postJson(`${signedIn.weft.url}/triggers/tokens/not-a-token`, "{}")).status).toBe(404);
    expect((await fetch(`${signedIn.weft.url}/triggers/tokens/${randomTokenId()}`)).status).toBe(404);
    const tooLarge = await call<{ code: string }>("workflows.completeToken", {
      tokenId: url.split("/").at(-1),
      data: "x".repeat(256 * 1024),
    });
    expect(tooLarge.status).toBe(400);
    const row = await execution(executionId);
    expect(row.status).toBe("waiting");
    expect(row.tokens[0]?.status).toBe("pending");
    await call("workflows.cancelExecution", { executionId });
  });

  it("fails a workflow whose token would wait more than 30 days, storing no token", async () => {
    const ran = await call<{ executionId: string }>("workflows.run", { projectId, workflow: "too-long", input: {} });
    const done = await until(ran.json.executionId, ["succeeded", "failed"]);
    expect(done.status).toBe("failed");
    expect(done.error).toMatchObject({ name: "TokenTimeoutTooLongError" });
    expect(done.error?.message).toContain("30 days");
    expect(done.tokens).toEqual([]);
  });
});

describe.skipIf(!hasChromium)("the token's page in a real browser", () => {
  it("Approve resumes the workflow with approved: true", async () => {
    const { executionId, url } = await waitingApproval();
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(url);
      await page.getByRole("button", { name: "Approve" }).click();
      await page.getByRole("heading", { name: "Thank you" }).waitFor();
      expect(await page.textContent(".status")).toBe("Approved");
    } finally {
      await browser.close();
    }
    const done = await until(executionId, ["succeeded", "failed"]);
    expect((done.output as { answer: unknown }).answer).toEqual({ ok: true, data: { approved: true } });
  });
});

describe("the logs", () => {
  it("never hold a token id, though the access log names every token request", () => {
    const logged = logLines.map((line) => JSON.stringify(line));
    expect(logged.some((line) => line.includes("/triggers/tokens/[redacted]"))).toBe(true);
    expect(logged.filter((line) => /wtk_[A-Za-z0-9_-]{20}/.test(line))).toEqual([]);
  });
});
