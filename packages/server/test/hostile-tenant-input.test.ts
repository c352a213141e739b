import { mkdtempSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callRpc,
  capturedLogger,
  createTestIdentity,
  deployManifest,
  emailRegistration,
  freePort,
  localPlatformEnv,
  postJson,
  spawnServer,
  startTestPlatform,
  type TestPlatform,
  waitUntilServing,
} from "./support/index.ts";

let weft: TestPlatform;
const logs = capturedLogger("info");
const projectId = "prj_01jhostiletenantinput000000";
const catastrophic = "^(a+)+$";

beforeAll(async () => {
  weft = await startTestPlatform({ logger: logs.logger });
  await deployManifest(weft, projectId, {
    version: 1,
    workflows: [{ name: "take" }],
    forms: [
      {
        name: "redos",
        workflow: "take",
        schema: { type: "object", properties: { name: { type: "string", pattern: catastrophic } } },
      },
      {
        name: "keys",
        workflow: "take",
        schema: {
          type: "object",
          patternProperties: { [catastrophic]: { type: "string" } },
          additionalProperties: false,
        },
      },
    ],
  });
});
afterAll(() => weft.stop());

/** An address of this machine that is not loopback, if it has one: a client there is not local. */
function externalAddress(): string | undefined {
  for (const addresses of Object.values(networkInterfaces())) {
    const external = addresses?.find((address) => !address.internal && address.family === "IPv4");
    if (external !== undefined) return external.address;
  }
  return undefined;
}

describe("hostile tenant: the dev mailbox", () => {
  const mailbox = (query: string, headers: Record<string, string> = {}) =>
    fetch(`${weft.url}/dev/mailbox${query}`, { headers: { accept: "application/json", ...headers } });

  it("refuses a request without its key, or with a wrong one, and says how to get the link", async () => {
    await postJson(`${weft.url}/agent/auth`, emailRegistration("victim@example.com"));
    for (const response of [await mailbox(""), await mailbox("?key=wrong"), await mailbox("?key=")]) {
      expect(response.status).toBe(401);
      const body = (await response.json()) as { error: string; message: string };
      expect(body.error).toBe("mailbox_key_required");
      expect(body.message).toContain("/dev/mailbox?key=");
      expect(JSON.stringify(body)).not.toContain("victim@example.com");
    }
    const key = new URL(weft.mailboxUrl ?? "").searchParams.get("key") ?? "";
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const withHeader = await mailbox("", { "x-weft-mailbox-key": key });
    expect(withHeader.status).toBe(200);
    const withQuery = await mailbox(`?key=${key}`);
    expect(((await withQuery.json()) as { messages: { to: string }[] }).messages[0]?.to).toBe("victim@example.com");
  });

  it("keeps the key in the page's own links", async () => {
    const page = await (await fetch(weft.mailboxUrl ?? "")).text();
    expect(page).toContain(`href="${new URL(weft.mailboxUrl ?? "").pathname}${new URL(weft.mailboxUrl ?? "").search}"`);
  });

  it("writes no approval link or code to the log, only where the mail is", async () => {
    await postJson(`${weft.url}/agent/auth`, emailRegistration("logged@example.com"));
    const stored = logs.lines.filter((line) => String(line.msg).startsWith("dev outbox: mail stored"));
    expect(stored.length).toBeGreaterThan(0);
    const text = JSON.stringify(logs.lines);
    expect(text).not.toContain("apv_");
    expect(text).not.toContain("/agent/auth/approve");
    expect(text).toContain("/dev/mailbox");
  });

  const external = externalAddress();
  it.skipIf(external === undefined)("answers 404 to a client that is not on loopback, even with the key", async () => {
    const open = await startTestPlatform({ env: { HOST: "0.0.0.0", WEFT_DEV_MAILBOX: "on" } });
    try {
      const local = await fetch(open.mailboxUrl ?? "", { headers: { accept: "application/json" } });
      expect(local.status).toBe(200);
      const remoteUrl = new URL(open.mailboxUrl ?? "");
      remoteUrl.hostname = external ?? "";
      const remote = await fetch(remoteUrl, { headers: { accept: "application/json" } });
      expect(remote.status).toBe(404);
      expect(await remote.json()).toMatchObject({ error: "not_found" });
    } finally {
      await open.stop();
    }
  });

  it("refuses to start on a non-loopback HOST without SMTP_URL, naming both ways out", async () => {
    const port = await freePort();
    const server = spawnServer({
      ...localPlatformEnv(port, mkdtempSync(join(tmpdir(), "weft-mailbox-"))),
      HOST: "0.0.0.0",
    });
    expect(await server.exited).toBe(1);
    const lines = server.stderr().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("SMTP_URL");
    expect(lines[0]).toContain("WEFT_DEV_MAILBOX=on");
    expect(server.stdout()).not.toContain("Weft is running");
  });

  it("prints the mailbox as a ready link at start-up, and the link opens it", async () => {
    const port = await freePort();
    const server = spawnServer(localPlatformEnv(port, mkdtempSync(join(tmpdir(), "weft-mailbox-"))));
    try {
      await waitUntilServing(server);
      const link = /Dev mailbox: (http:\/\/\S+\/dev\/mailbox\?key=[A-Za-z0-9_-]{43})\n/.exec(server.stdout())?.[1];
      expect(link).toBeDefined();
      expect((await fetch(link ?? "")).status).toBe(200);
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  });
});

describe("hostile tenant: regular expressions in form schemas", () => {
  it("answers a catastrophic-backtracking input at once, while /healthz keeps answering", async () => {
    const hostile = `${"a".repeat(5000)}!`;
    const started = performance.now();
    const submissions = [
      fetch(`${weft.url}/forms/redos?projectId=${projectId}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: hostile }),
      }),
      fetch(`${weft.url}/forms/keys?projectId=${projectId}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ [hostile]: "x" }),
      }),
    ];
    const health = await fetch(`${weft.url}/healthz`);
    const [form, keys] = await Promise.all(submissions);
    const elapsedMs = performance.now() - started;
    expect(health.status).toBe(200);
    expect(form?.status).toBe(400);
    expect(await form?.json()).toMatchObject({ error: "invalid_input", issues: [{ path: "name" }] });
    expect(keys?.status).toBe(400);
    // A backtracking engine needs longer than the age of the universe for 5 000 characters; RE2 needs milliseconds.
    expect(elapsedMs).toBeLessThan(2000);
  });

  it("refuses at deploy a pattern the linear engine cannot run, naming the field", async () => {
    const owner = await createTestIdentity(weft, "patterns@example.com");
    const project = (await callRpc(weft.url, "projects.create", { name: "Patterns" }, { token: owner.credential }))
      .json as { id: string };
    const deploy = (schema: Record<string, unknown>) =>
      callRpc(
        weft.url,
        "deployments.create",
        {
          projectId: project.id,
          manifest: { version: 1, workflows: [{ name: "take" }], forms: [{ name: "f", workflow: "take", schema }] },
          bundle: "export default {}",
        },
        { token: owner.credential },
      );
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [
        { type: "object", properties: { name: { type: "string", pattern: "^(a)\\1$" } } },
        "forms[0].schema.properties.name.pattern",
        /linear time/,
      ],
      [
        { type: "object", patternProperties: { "^(?=x)": { type: "string" } } },
        'forms[0].schema.patternProperties["^(?=x)"]',
        /linear time/,
      ],
      [{ $ref: "#" }, "forms[0].schema.$ref", /refers back to itself/],
      [
        { $defs: { a: { allOf: [{ $ref: "#/$defs/b" }] }, b: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" },
        "forms[0].schema",
        /refers back to itself/,
      ],
      [{ properties: { a: { $ref: "#/$defs/missing" } } }, "forms[0].schema.properties.a.$ref", /does not resolve/],
    ];
    for (const [schema, field, problem] of cases) {
      const refused = await deploy(schema);
      expect(refused.status).toBe(400);
      const issues = (refused.json as { data: { issues: { message: string }[] } }).data.issues;
      expect(issues[0]?.message.startsWith(field)).toBe(true);
      expect(issues[0]?.message).toMatch(problem);
    }
    const listed = await callRpc(weft.url, "deployments.list", { projectId: project.id }, { token: owner.credential });
    expect((listed.json as { totalCount: number }).totalCount).toBe(0);
    const recursive = {
      type: "object",
      properties: { children: { type: "array", items: { $ref: "#" } } },
    };
    expect((await deploy(recursive)).status).toBe(200);
  });
});
