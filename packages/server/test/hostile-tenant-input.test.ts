import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import {
  authorizeUrl,
  callRpc,
  capturedLogger,
  createTestIdentity,
  deployManifest,
  emailRegistration,
  executionCount,
  formCsrfTokenOf,
  freePort,
  localPlatformEnv,
  pkcePair,
  postJson,
  registerOAuthClient,
  requestToken,
  spawnServer,
  startTestPlatform,
  type TestIdentity,
  type TestPlatform,
  waitUntilServing,
} from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { headerParameterText } from "../src/http/response-headers.ts";
import { unreadBodyDiscardBytes } from "../src/http/unread-body.ts";
import { devMailboxStartUpLine } from "../src/mail/dev-mailbox-line.ts";
import { rateLimitClientKey } from "../src/rate-limit/client-key.ts";
import { hasIdShape } from "../src/shared/ids.ts";
import { isLoopbackAddress } from "../src/shared/loopback.ts";
import { createManualTimers } from "../src/shared/timers.ts";

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
        name: "plain",
        workflow: "take",
        schema: { type: "object", properties: { name: { type: "string" }, data: { type: "object" } } },
      },
      {
        name: "locked",
        workflow: "take",
        title: 'Café ☕ 表单 "quoted" \\',
        schema: { type: "object", properties: { name: { type: "string" } } },
        basicAuth: { username: "ann", password: "open sesame" },
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
    webhooks: [{ name: "hook", workflow: "take" }],
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

  it("counts only this machine's addresses as loopback (unit)", () => {
    for (const address of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1", "localhost", "[::1]"]) {
      expect(isLoopbackAddress(address)).toBe(true);
    }
    for (const address of ["0.0.0.0", "::", "10.0.0.1", "::ffff:10.0.0.1", "192.168.1.2", "example.com", "unknown"]) {
      expect(isLoopbackAddress(address)).toBe(false);
    }
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

  it("keeps the mailbox's link out of output that is not a terminal: a 0600 file the start-up line names", async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), "weft-mailbox-"));
    const server = spawnServer(localPlatformEnv(port, dataDir));
    try {
      // A whole platform starting (migrations, sandbox probe) on a busy machine: more than the usual 30 s.
      await waitUntilServing(server, 80_000);
      // The mailbox's line follows the readiness line in a write of its own, which may arrive later.
      const mailboxLine = /Dev mailbox: http:\/\/\S+\/dev\/mailbox \(its link with the key is in (\S+),/;
      await vi.waitFor(() => expect(server.stdout()).toMatch(mailboxLine), { timeout: 10_000 });
      const file = mailboxLine.exec(server.stdout())?.[1] ?? "";
      expect(file).toBe(join(dataDir, "dev-mailbox.link"));
      expect(server.stdout()).not.toMatch(/key=/);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const link = readFileSync(file, "utf8").trim();
      expect(link).toMatch(/^http:\/\/\S+\/dev\/mailbox\?key=[A-Za-z0-9_-]{43}$/);
      expect((await fetch(link)).status).toBe(200);
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  }, 90_000);

  it("prints, under a base URL with a path, a link that opens the mailbox", async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), "weft-mailbox-"));
    const server = spawnServer({ ...localPlatformEnv(port, dataDir), WEFT_BASE_URL: `http://127.0.0.1:${port}/weft` });
    try {
      await waitUntilServing(server, 80_000);
      const mailboxLine = /Dev mailbox: (http:\/\/\S+) \(its link with the key is in (\S+),/;
      await vi.waitFor(() => expect(server.stdout()).toMatch(mailboxLine), { timeout: 10_000 });
      const [, printed, file] = mailboxLine.exec(server.stdout()) ?? [];
      expect(printed).toBe(`http://127.0.0.1:${port}/weft/dev/mailbox`);
      const link = readFileSync(file ?? "", "utf8").trim();
      expect(link.startsWith(`${printed}?key=`)).toBe(true);
      const page = await fetch(link);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain("Dev mailbox");
      expect(html).toContain(`href="/weft/dev/mailbox?key=`);
      expect((await fetch(`${printed}?key=wrong`)).status).toBe(401);
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  }, 90_000);

  it("prints the ready link to a terminal, and writes no file then (unit)", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "weft-mailbox-"));
    const input = { baseUrl: "http://127.0.0.1:3000", dataDir, key: "k".repeat(43) };
    expect(devMailboxStartUpLine(input, true)).toBe(
      `Dev mailbox: http://127.0.0.1:3000/dev/mailbox?key=${"k".repeat(43)}`,
    );
    expect(existsSync(join(dataDir, "dev-mailbox.link"))).toBe(false);
    // A file that was there, with looser permissions, is replaced, not written through.
    writeFileSync(join(dataDir, "dev-mailbox.link"), "old\n", { mode: 0o644 });
    expect(devMailboxStartUpLine(input, false)).not.toContain("key=");
    expect(statSync(join(dataDir, "dev-mailbox.link")).mode & 0o777).toBe(0o600);
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

const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
/** Raw JSON texts PostgreSQL cannot store, or nested beyond the bound, and the field each names. */
const hostileBodies: [string, string, RegExp][] = [
  ["NUL", '{"name": "a\\u0000b"}', /name contains a NUL character/],
  ["lone surrogate", '{"name": "\\ud800"}', /name contains a lone UTF-16 surrogate/],
  ["NUL in a key", '{"data": {"k\\u0000": 1}}', /NUL character/],
  ["5 000 levels", deep, /nested more than 64 levels deep/],
];

/** Posts `body` as JSON to `path` and expects 400 invalid_body naming `message`, with no execution enqueued. */
async function expectBodyRefused(path: string, body: string, message: RegExp): Promise<void> {
  const before = await executionCount(weft, projectId);
  const response = await fetch(`${weft.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  expect(response.status).toBe(400);
  const answer = (await response.json()) as { error: string; message: string };
  expect(answer.error).toBe("invalid_body");
  expect(answer.message).toMatch(message);
  expect(await executionCount(weft, projectId)).toBe(before);
}

describe("hostile tenant: request bodies", () => {
  it.each(hostileBodies)(
    "a webhook refuses %s with 400 naming the field, enqueuing nothing",
    async (_, body, message) => {
      await expectBodyRefused(`/triggers/webhooks/${projectId}/hook`, body, message);
    },
  );

  it("a webhook refuses NUL in a text body or a query value, naming where", async () => {
    const text = await fetch(`${weft.url}/triggers/webhooks/${projectId}/hook`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "a\u0000b",
    });
    expect(text.status).toBe(400);
    expect(((await text.json()) as { message: string }).message).toMatch(/body contains a NUL/);
    const query = await fetch(`${weft.url}/triggers/webhooks/${projectId}/hook?x=%00`, { method: "POST" });
    expect(query.status).toBe(400);
    expect(((await query.json()) as { message: string }).message).toMatch(/query\.x contains a NUL/);
  });

  it.each(hostileBodies)("a programmatic form refuses %s with 400 naming the field", async (_, body, message) => {
    await expectBodyRefused(`/forms/plain?projectId=${projectId}`, body, message);
  });

  it.each(hostileBodies)("the authorization server refuses %s with invalid_request", async (_, body, message) => {
    const response = await fetch(`${weft.url}/agent/auth`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(response.status).toBe(400);
    const answer = (await response.json()) as { error: string; error_description: string };
    expect(answer.error).toBe("invalid_request");
    expect(answer.error_description).toMatch(message);
  });

  it("a hosted form refuses an answer with NUL or 5 000 levels, showing the form again with the problem", async () => {
    const formUrl = `${weft.url}/triggers/forms/${projectId}/plain`;
    const token = formCsrfTokenOf(await (await fetch(formUrl)).text());
    const before = await executionCount(weft, projectId);
    const response = await fetch(formUrl, {
      method: "POST",
      body: new URLSearchParams({ _csrf: token, name: "a\u0000b" }),
      redirect: "manual",
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("name contains a NUL character");
    const deepToken = formCsrfTokenOf(await (await fetch(formUrl)).text());
    const deepAnswer = await fetch(formUrl, {
      method: "POST",
      body: new URLSearchParams({ _csrf: deepToken, data: `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}` }),
      redirect: "manual",
    });
    expect(deepAnswer.status).toBe(400);
    expect(await deepAnswer.text()).toContain("nested more than 64 levels deep");
    expect(await executionCount(weft, projectId)).toBe(before);
  });
});

describe("hostile tenant: impossible ids in paths", () => {
  const impossible: [string, string][] = [
    ["%00", "%00"],
    ["NUL after the prefix", "prj_%00"],
    ["a lone surrogate", "prj_%ED%A0%80"],
    ["5 000 characters", `prj_${"a".repeat(5000)}`],
    ["upper case", "prj_ABC"],
    ["a space", "prj_a%20b"],
  ];

  it.each(impossible)("answers %s as a project id with each surface's not-found", async (_, id) => {
    const hosted = await fetch(`${weft.url}/triggers/forms/${id}/plain`);
    expect(hosted.status).toBe(404);
    expect(await hosted.text()).toContain("Form not found");
    const hostedPost = await fetch(`${weft.url}/triggers/forms/${id}/plain`, {
      method: "POST",
      body: new URLSearchParams({ name: "x" }),
    });
    expect(hostedPost.status).toBe(404);
    expect((await fetch(`${weft.url}/triggers/forms/${id}/plain/submitted`)).status).toBe(404);
    const webhook = await fetch(`${weft.url}/triggers/webhooks/${id}/hook`, { method: "POST", body: "{}" });
    expect(webhook.status).toBe(404);
    expect(await webhook.json()).toMatchObject({ error: "not_found" });
    const programmatic = await fetch(`${weft.url}/forms/plain?projectId=${id}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(programmatic.status).toBe(404);
    expect(await programmatic.json()).toMatchObject({ error: "not_found" });
  });

  it("answers an impossible form or webhook name with not found", async () => {
    for (const name of ["%00", "%ED%A0%80", "a".repeat(5000)]) {
      const programmatic = await fetch(`${weft.url}/forms/${name}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(programmatic.status).toBe(404);
      expect((await fetch(`${weft.url}/triggers/webhooks/${projectId}/${name}`, { method: "POST" })).status).toBe(404);
    }
  });

  it("tells an id's shape from anything else (unit)", () => {
    expect(hasIdShape("prj_01jhostiletenantinput000000", "project")).toBe(true);
    expect(hasIdShape("prj_01JABC", "project")).toBe(false);
    expect(hasIdShape("dep_01jabc", "project")).toBe(false);
    expect(hasIdShape("prj_", "project")).toBe(false);
    expect(hasIdShape("prj_a\u0000", "project")).toBe(false);
    expect(hasIdShape(`prj_${"a".repeat(41)}`, "project")).toBe(false);
  });
});

describe("hostile tenant: header values built from definitions", () => {
  it("challenges with a Latin-1-safe realm when the form's title is not Latin-1", async () => {
    const hosted = await fetch(`${weft.url}/triggers/forms/${projectId}/locked`);
    expect(hosted.status).toBe(401);
    expect(hosted.headers.get("www-authenticate")).toBe('Basic realm="Caf? ? ?? quoted ", charset="UTF-8"');
    const programmatic = await fetch(`${weft.url}/forms/locked?projectId=${projectId}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(programmatic.status).toBe(401);
    expect(programmatic.headers.get("www-authenticate")).toMatch(/^Basic realm="[\x20-\x7e]*", charset="UTF-8"$/);
  });

  it("keeps printable ASCII and drops what would end the quoted string (unit)", () => {
    expect(headerParameterText('Sign "up" \\ now')).toBe("Sign up  now");
    expect(headerParameterText("Zoë\r\nX-Evil: 1")).toBe("Zo???X-Evil: 1");
  });
});

describe("hostile tenant: rate limits", () => {
  it("counts an IPv6 client by its /64 network, an IPv4 client by its address (unit)", () => {
    expect(rateLimitClientKey("2001:db8:1:2::a")).toBe(rateLimitClientKey("2001:db8:1:2:ffff:1:2:3"));
    expect(rateLimitClientKey("2001:db8:1:2::a")).not.toBe(rateLimitClientKey("2001:db8:1:3::a"));
    expect(rateLimitClientKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(rateLimitClientKey("10.0.0.1")).toBe("10.0.0.1");
    expect(rateLimitClientKey("10.0.0.1")).not.toBe(rateLimitClientKey("10.0.0.2"));
  });

  it("limits hosted form submissions per client and form with 429 and Retry-After; IPv6 per /64", async () => {
    const limited = await startTestPlatform({
      env: { WEFT_RATE_LIMIT_FORMS: "2", WEFT_TRUSTED_PROXIES: "127.0.0.1" },
    });
    try {
      await deployManifest(limited, projectId, {
        version: 1,
        workflows: [{ name: "take" }],
        forms: [
          { name: "plain", workflow: "take", schema: { type: "object", properties: { name: { type: "string" } } } },
        ],
      });
      const formUrl = `${limited.url}/triggers/forms/${projectId}/plain`;
      const submit = async (client: string) => {
        const token = formCsrfTokenOf(await (await fetch(formUrl)).text());
        return fetch(formUrl, {
          method: "POST",
          headers: { "x-forwarded-for": client },
          body: new URLSearchParams({ _csrf: token, name: "n" }),
          redirect: "manual",
        });
      };
      expect((await submit("2001:db8:1:2::a")).status).toBe(303);
      expect((await submit("2001:db8:1:2::b")).status).toBe(303);
      const refused = await submit("2001:db8:1:2:ffff::c");
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await refused.text()).toContain("Too many submissions");
      expect((await submit("2001:db8:1:3::a")).status).toBe(303);
      expect((await submit("192.0.2.1")).status).toBe(303);
      expect(await executionCount(limited, projectId)).toBe(4);
    } finally {
      await limited.stop();
    }
  });
});

/** NUL, the other C0 controls a mail body or header would take as structure, DEL and a C1 control. */
const controlCharacters: [string, string][] = [
  ["NUL", "\u0000"],
  ["CR LF", "\r\n"],
  ["LF", "\n"],
  ["a tab", "\t"],
  ["ESC", "\u001b"],
  ["DEL", "\u007f"],
  ["NEL (C1)", "\u0085"],
];

describe("hostile tenant: control characters in OAuth parameters", () => {
  let clientId: string;
  const redirectUri = "http://127.0.0.1:9911/callback";

  beforeAll(async () => {
    const registered = await registerOAuthClient(weft.url, {
      client_name: "Controls",
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: "none",
    });
    clientId = String(registered.body.client_id);
  });

  it.each(controlCharacters)(
    "the authorize page answers %s in any parameter with 400, redirecting nowhere",
    async (_, control) => {
      const { challenge } = pkcePair();
      const valid = {
        response_type: "code",
        client_id: clientId,
        redirect_uri: redirectUri,
        code_challenge: challenge,
        code_challenge_method: "S256",
        state: "s",
        scope: "projects:read",
      };
      for (const name of ["client_id", "redirect_uri", "state", "scope", "code_challenge", "resource"]) {
        const url = authorizeUrl(weft.url, {
          ...valid,
          [name]: `${valid[name as keyof typeof valid] ?? ""}${control}x`,
        });
        const response = await fetch(url, { redirect: "manual" });
        expect(response.status, name).toBe(400);
        expect(response.headers.get("location"), name).toBeNull();
        expect(await response.text(), name).toContain("control character");
      }
    },
  );

  // One request per character, each in another parameter: the endpoint's rate limit allows 20 a minute.
  const tokenParameters = ["client_id", "code", "redirect_uri", "code_verifier", "scope"];
  it.each(controlCharacters.map(([what, control], index) => [what, tokenParameters[index % 5] ?? "", control]))(
    "the token endpoint answers %s in %s with invalid_request",
    async (_, name, control) => {
      const valid: Record<string, string> = {
        grant_type: "authorization_code",
        client_id: clientId,
        code: "abc",
        redirect_uri: redirectUri,
        code_verifier: "v".repeat(43),
        scope: "projects:read",
      };
      const response = await requestToken(weft.url, { ...valid, [name]: `${valid[name]}${control}` });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: "invalid_request",
        error_description: `${name} holds a control character.`,
      });
    },
  );
});

describe("hostile tenant: control characters in project and workspace names", () => {
  let owner: TestIdentity;
  let workspaceId: string;
  let existingProjectId: string;

  beforeAll(async () => {
    owner = await createTestIdentity(weft, "names@example.com");
    workspaceId = owner.personalWorkspaceId;
    const created = await callRpc(weft.url, "projects.create", { name: "Plain" }, { token: owner.credential });
    existingProjectId = (created.json as { id: string }).id;
  });

  const expectNameRefused = (response: { status: number; json: unknown }, what: string) => {
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      code: "BAD_REQUEST",
      data: {
        issues: expect.arrayContaining([
          {
            path: ["name"],
            // NUL is refused before the schema, by what keeps every stored text storable.
            message: expect.stringMatching(
              new RegExp(`^A ${what} name cannot contain control characters|^name contains a NUL character`),
            ),
          },
        ]),
      },
    });
  };

  it.each(controlCharacters)(
    "RPC refuses %s in a project's or a workspace's name, naming the field",
    async (_, control) => {
      const name = `Acme${control}Bcc: victim@example.com`;
      const token = { token: owner.credential };
      expectNameRefused(await callRpc(weft.url, "projects.create", { name }, token), "project");
      expectNameRefused(
        await callRpc(weft.url, "projects.update", { projectId: existingProjectId, name }, token),
        "project",
      );
      expectNameRefused(await callRpc(weft.url, "access.createWorkspace", { name }, token), "workspace");
      expectNameRefused(await callRpc(weft.url, "access.renameWorkspace", { workspaceId, name }, token), "workspace");
      const listed = await callRpc(weft.url, "projects.list", {}, token);
      expect((listed.json as { results: { name: string }[] }).results.map((project) => project.name)).toEqual([
        "Plain",
      ]);
    },
  );

  it("the plain JSON API and MCP refuse them the same way", async () => {
    const api = await fetch(`${weft.url}/api/projects/create`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${owner.credential}` },
      body: JSON.stringify({ name: "Acme\r\nBcc: x" }),
    });
    expect(api.status).toBe(400);
    expect(await api.text()).toContain("cannot contain control characters");
    const mcp = await fetch(`${weft.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${owner.credential}`,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "projects_create", arguments: { name: "Acme\u001b[2J" } },
      }),
    });
    const text = await mcp.text();
    expect(text).toContain("name: A project name cannot contain control characters");
    const listed = await callRpc(weft.url, "projects.list", {}, { token: owner.credential });
    expect((listed.json as { totalCount: number }).totalCount).toBe(1);
  });
});

/** A raw connection that has sent a chunked POST's head; `write` sends one body chunk. */
async function openChunkedPost(url: string, path: string) {
  const target = new URL(url);
  const socket = connect(Number(target.port), target.hostname);
  await new Promise((resolve) => socket.once("connect", resolve));
  const seen = { answer: "", ended: false };
  socket.on("data", (data: Buffer) => {
    seen.answer += data.toString();
  });
  socket.on("end", () => {
    seen.ended = true;
  });
  socket.on("error", () => undefined);
  socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n`);
  const chunk = Buffer.alloc(64 * 1024, 120);
  return {
    socket,
    seen,
    write: () => socket.write(`${chunk.length.toString(16)}\r\n${chunk.toString()}\r\n`),
    chunkBytes: chunk.length,
  };
}

describe("hostile tenant: bodies left unread by an early answer", () => {
  it("an endless body is read up to the discard bound, then answered and its connection closed", async () => {
    const post = await openChunkedPost(weft.url, "/triggers/tokens/wtk_unknown");
    let sent = 0;
    while (!post.seen.ended && !post.socket.destroyed) {
      if (!post.write()) {
        await new Promise((resolve) => {
          post.socket.once("drain", resolve);
          post.socket.once("close", resolve);
        });
      }
      sent += post.chunkBytes;
    }
    expect(post.seen.answer.split("\r\n")[0]).toBe("HTTP/1.1 415 Unsupported Media Type");
    expect(post.seen.answer.toLowerCase()).toContain("connection: close");
    // The bound, the lingering close's as much again, and what the sockets' buffers held.
    expect(sent).toBeLessThan(2 * unreadBodyDiscardBytes + 16 * 1024 * 1024);
    expect((await fetch(`${weft.url}/healthz`)).status).toBe(200);
  }, 60_000);

  it("a body that trickles forever holds its connection only until the discard time passes", async () => {
    const timers = createManualTimers();
    const slow = await startTestPlatform({ timers, env: { WEFT_ROLES: "auth,api,ingress" } });
    try {
      const post = await openChunkedPost(slow.url, "/triggers/tokens/wtk_unknown");
      post.write();
      // The 415 is held while the rest is read; the discard time is the only timer waiting.
      await vi.waitFor(() => expect(timers.pending()).toBe(1));
      expect(post.seen.answer).toBe("");
      timers.fireAll();
      await vi.waitFor(() => expect(post.seen.answer).toContain("\r\n\r\n"));
      expect(post.seen.answer.split("\r\n")[0]).toBe("HTTP/1.1 415 Unsupported Media Type");
      expect(post.seen.answer.toLowerCase()).toContain("connection: close");
      post.write();
      // The lingering close waits for the client to read the answer, no longer than its own time.
      await vi.waitFor(() => expect(post.seen.ended).toBe(true));
      timers.fireAll();
      await vi.waitFor(() => expect(post.socket.destroyed || post.socket.readyState === "closed").toBe(true));
      expect((await fetch(`${slow.url}/healthz`)).status).toBe(200);
    } finally {
      await slow.stop();
    }
  }, 60_000);
});
