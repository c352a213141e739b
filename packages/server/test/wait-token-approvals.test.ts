import {
  bundleConfig,
  callRpc,
  createTestIdentity,
  formCsrfTokenOf,
  signedInTestPlatform,
  type TestIdentity,
  untilExecutionStatus,
} from "@weft/testing";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * What a wait token shows its approver (`title`, `description`, `fields`), who may answer it
 * (`approvers: "members"`), who did, and the workspace's list of what waits: through the token's
 * URL, `workflows.answerToken` and `studio.approvals`, with the refusals of each.
 */

const signedIn = signedInTestPlatform("owner@example.com", {
  configure: (parsed) => ({ ...parsed, worker: { ...parsed.worker, pollIntervalMs: 25 } }),
});
let stranger: TestIdentity;
let projectId: string;
let workspaceId: string;

const source = `import { defineConfig, workflow } from "@weft/sdk";

const details = (approvers: "anyone" | "members") => ({
  timeout: "1d",
  title: "Expense of <b>120 EUR</b>",
  description: "Team lunch & <script>alert(1)</script>",
  fields: [
    { label: "Amount", value: 120 },
    { label: "Requested by", value: "grace@example.com" },
  ],
  approvers,
});

export default defineConfig({
  workflows: [
    workflow({
      name: "expense",
      async run(input: { approvers: "anyone" | "members" }, ctx) {
        const token = await ctx.createToken("approval", details(input.approvers));
        await ctx.step("ask", () => token.url);
        return ctx.waitForToken("approval");
      },
    }),
    workflow({
      name: "long-title",
      retries: { maxAttempts: 1 },
      async run(_input: unknown, ctx) {
        return ctx.waitForToken("approval", { timeout: "1h", title: "t".repeat(201) });
      },
    }),
    workflow({
      name: "control-title",
      retries: { maxAttempts: 1 },
      async run(_input: unknown, ctx) {
        return ctx.createToken("approval", { timeout: "1h", title: "Pay \\u001b[2J now" });
      },
    }),
    workflow({
      name: "many-fields",
      retries: { maxAttempts: 1 },
      async run(_input: unknown, ctx) {
        const fields = Array.from({ length: 21 }, (_, index) => ({ label: "line " + index, value: index }));
        return ctx.createToken("approval", { timeout: "1h", fields });
      },
    }),
  ],
});
`;

const manifest = {
  version: 1,
  workflows: [
    { name: "expense" },
    { name: "long-title", retries: { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 } },
    { name: "many-fields", retries: { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 } },
    { name: "control-title", retries: { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 } },
  ],
};

interface TokenJson {
  name: string;
  status: string;
  title: string | null;
  description: string | null;
  fields: { label: string; value: string }[];
  approvers: string;
  completedBy: { accountId: string; email: string | null } | null;
}

interface ExecutionJson {
  id: string;
  status: string;
  output: unknown;
  error: { name: string; message: string } | null;
  steps: { name: string; output: unknown }[];
  tokens: TokenJson[];
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

async function waitingExpense(approvers: "anyone" | "members"): Promise<{ executionId: string; url: string }> {
  const ran = await call<{ executionId: string }>("workflows.run", {
    projectId,
    workflow: "expense",
    input: { approvers },
  });
  const waiting = await until(ran.json.executionId, ["waiting"]);
  const url = waiting.steps.find((step) => step.name === "ask")?.output;
  if (typeof url !== "string") throw new Error("the workflow stored no URL");
  return { executionId: ran.json.executionId, url };
}

beforeAll(async () => {
  stranger = await createTestIdentity(signedIn.weft, "stranger@example.com");
  const created = await call<{ id: string; workspaceId: string }>("projects.create", { name: "Expenses" });
  projectId = created.json.id;
  workspaceId = created.json.workspaceId;
  const deployed = await call("deployments.create", { projectId, manifest, bundle: await bundleConfig(source) });
  expect(deployed.status).toBe(200);
});

describe("what a token shows", () => {
  it("stores the title, description and fields, and its page renders them escaped", async () => {
    const { executionId, url } = await waitingExpense("anyone");
    const [token] = (await execution(executionId)).tokens;
    expect(token).toMatchObject({
      name: "approval",
      status: "pending",
      title: "Expense of <b>120 EUR</b>",
      description: "Team lunch & <script>alert(1)</script>",
      fields: [
        { label: "Amount", value: "120" },
        { label: "Requested by", value: "grace@example.com" },
      ],
      approvers: "anyone",
      completedBy: null,
    });
    const html = await (await fetch(url)).text();
    expect(html).toContain("Expense of &lt;b&gt;120 EUR&lt;/b&gt;");
    expect(html).toContain("Team lunch &amp; &lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).not.toContain("<script>alert(1)");
    expect(html).toContain("<dt>Requested by</dt><dd>grace@example.com</dd>");

    // Answered through its URL: no account is on record.
    const csrf = formCsrfTokenOf(html);
    const approved = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `_csrf=${encodeURIComponent(csrf)}&decision=approve`,
    });
    expect(approved.status).toBe(200);
    const done = await until(executionId, ["succeeded", "failed"]);
    expect(done.output).toEqual({ ok: true, data: { approved: true } });
    expect(done.tokens[0]).toMatchObject({ status: "completed", completedBy: null });
  });

  it("fails the workflow whose title is over 200 characters, storing no token", async () => {
    const ran = await call<{ executionId: string }>("workflows.run", { projectId, workflow: "long-title", input: {} });
    const done = await until(ran.json.executionId, ["succeeded", "failed"]);
    expect(done.status).toBe("failed");
    expect(done.error).toMatchObject({ name: "TokenDetailsError" });
    expect(done.error?.message).toContain("title is 201 characters long; the limit is 200");
    expect(done.tokens).toEqual([]);
  });

  it("fails the workflow whose title holds a control character (a terminal's escape), storing no token", async () => {
    const ran = await call<{ executionId: string }>("workflows.run", {
      projectId,
      workflow: "control-title",
      input: {},
    });
    const done = await until(ran.json.executionId, ["succeeded", "failed"]);
    expect(done.status).toBe("failed");
    expect(done.error).toMatchObject({ name: "TokenDetailsError" });
    expect(done.error?.message).toContain("title contains a control character");
    expect(done.tokens).toEqual([]);
  });

  it("fails the workflow whose token has more than 20 fields, storing no token", async () => {
    const ran = await call<{ executionId: string }>("workflows.run", { projectId, workflow: "many-fields", input: {} });
    const done = await until(ran.json.executionId, ["succeeded", "failed"]);
    expect(done.status).toBe("failed");
    expect(done.error).toMatchObject({ name: "TokenDetailsError" });
    expect(done.error?.message).toContain("has 21 fields; the limit is 20");
    expect(done.tokens).toEqual([]);
  });
});

describe("a token only members may answer", () => {
  it("refuses its URL, lists it among the workspace's approvals, and records the member who approves", async () => {
    const { executionId, url } = await waitingExpense("members");

    const page = await fetch(url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Expense of &lt;b&gt;120 EUR&lt;/b&gt;");
    expect(html).not.toContain('value="approve"');
    expect(html).toContain(`${signedIn.weft.url}/studio/executions/${executionId}`);

    const posted = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"approved": true}',
    });
    expect(posted.status).toBe(403);
    expect(await posted.json()).toMatchObject({ error: "forbidden" });
    const form = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "decision=approve",
    });
    expect(form.status).toBe(403);

    const answer = { executionId, name: "approval", decision: "approve" };
    expect((await callRpc(signedIn.weft.url, "workflows.answerToken", answer)).status).toBe(401);
    expect((await call("workflows.answerToken", answer, stranger.credential)).status).toBe(404);
    const wrongName = await call<{ code: string }>("workflows.answerToken", { ...answer, name: "other" });
    expect(wrongName.status).toBe(404);
    expect((await execution(executionId)).status).toBe("waiting");

    const listed = await call<{ approvals: (TokenJson & { executionId: string; projectName: string })[] }>(
      "studio.approvals",
      { workspaceId },
    );
    expect(listed.status).toBe(200);
    expect(listed.json.approvals.find((approval) => approval.executionId === executionId)).toMatchObject({
      name: "approval",
      projectName: "Expenses",
      approvers: "members",
      title: "Expense of <b>120 EUR</b>",
    });
    const strangers = await call("studio.approvals", { workspaceId }, stranger.credential);
    expect(strangers.status).toBe(404);

    expect(await call("workflows.answerToken", answer)).toEqual({
      status: 200,
      json: { executionId, status: "completed" },
    });
    const done = await until(executionId, ["succeeded", "failed"]);
    expect(done.output).toEqual({ ok: true, data: { approved: true } });
    expect(done.tokens[0]).toMatchObject({
      status: "completed",
      completedBy: { accountId: signedIn.identity.accountId, email: "owner@example.com" },
    });
    const twice = await call<{ code: string }>("workflows.answerToken", { ...answer, decision: "reject" });
    expect(twice.status).toBe(409);

    const after = await call<{ approvals: { executionId: string }[] }>("studio.approvals", { workspaceId });
    expect(after.json.approvals.map((approval) => approval.executionId)).not.toContain(executionId);
    const audit = await call<{ data: { action: string; targetId: string; data: unknown }[] }>("access.auditLog", {
      workspaceId,
      filter: { action: "token.completed" },
    });
    expect(audit.json.data).toEqual([
      expect.objectContaining({ targetId: executionId, data: { token: "approval", approved: true } }),
    ]);
  });
});
