import type { ProcedureName } from "@weft/contract";
import {
  arbitraryOfJsonSchema,
  contractCalls,
  contractProcedureInputs,
  createTestIdentity,
  emailRegistration,
  type FuzzRequest,
  type FuzzSurface,
  type FuzzTally,
  type FuzzTarget,
  formatFuzzTallies,
  formCsrfTokenOf,
  fuzzSurface,
  hostileSegment,
  hostileString,
  installChangeCounter,
  type JsonSchema,
  joinWorkspace,
  mutatedBody,
  mutatedContentType,
  mutatedValue,
  postJson,
  proceduresWithoutCall,
  randomTokenId,
  registerEmailAgent,
  registerSecret,
  startTestPlatform,
  storeTestWaitToken,
  type TestIdentity,
  type TestPlatform,
  type WatchedTable,
} from "@weft/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * Inputs per surface: a small seed set in `npm test`; `npm run test:fuzz` sets WEFT_FUZZ_RUNS to
 * 100 000. The seed is fixed, so a failure found once is found again.
 */
const seedRuns = 15;
const runs = Number(process.env.WEFT_FUZZ_RUNS ?? seedRuns);
const seed = Number(process.env.WEFT_FUZZ_SEED ?? 20261123);

interface Fixture {
  caller: TestIdentity;
  projectId: string;
  /** A project of its own for `projects.delete`, which would otherwise delete `projectId` under every later surface. */
  doomedProjectId: string;
  deploymentId: string;
  executionId: string;
  /** An execution that sleeps for a week, for `workflows.cancelExecution` to reach: the other has finished. */
  heldExecutionId: string;
  traceId: string;
  invitationId: string;
  /** A member of the caller's workspace besides the caller, for `updateRole` and `removeMember` to reach. */
  memberAccountId: string;
  agentId: string;
  /** A federation policy of the project, for `deleteFederationPolicy` to reach. */
  policyId: string;
  tokenId: string;
  claimToken: string;
  hostedFormCsrf: string;
}

let weft: TestPlatform;
let fixture: Fixture;
let fingerprint: () => Promise<string>;

/**
 * What a refusal must not write. Rows that change on every call (`last_used_at`, a claim's count of
 * wrong codes, rate-limit counters) and the worker's progress on accepted executions are left out.
 */
const watchedTables: WatchedTable[] = [
  ["executions", "insert or delete"],
  ["idempotency_keys", "insert or delete"],
  ["audit_events", "insert or delete"],
  ["registrations", "insert or delete"],
  ["credentials", "insert or delete or update of revoked_at"],
  ["projects", "insert or delete or update"],
  ["workspaces", "insert or delete or update"],
  ["memberships", "insert or delete or update"],
  ["invitations", "insert or delete or update"],
  ["deployments", "insert or delete"],
  ["active_deployments", "insert or delete or update"],
  ["schedules", "insert or delete or update"],
  ["wait_tokens", "insert or delete or update of status"],
  ["global_form_names", "insert or delete or update"],
  ["integrations", "insert or delete or update"],
  ["federation_policies", "insert or delete or update"],
  ["oauth_clients", "insert or delete"],
  ["oauth_authorization_codes", "insert or delete"],
  ["oauth_refresh_tokens", "insert or delete"],
  ["studio_sessions", "insert or delete"],
  ["studio_sign_in_links", "insert or delete"],
];
const tallies: FuzzTally[] = [];
const started = Date.now();

/** An integration of the fixture's project, for `integrations.get` to find: the surfaces that create one come after it. */
const fixtureIntegration = "mailer";
const fixtureIntegrationSecret = "fuzz-fixture-integration-secret";

/** Issuers a federation policy accepts: https, or http on a loopback host. */
const fuzzedIssuers = ["https://issuer.example.com", "http://127.0.0.1:9/idp"];

/** The names the fixture's deployment gives its workflows, forms, webhooks and schedule. */
const deployedNames = ["take", "hold", "contact", "locked", "hook", "signed", "nightly"];

const formSchema = {
  type: "object",
  properties: {
    name: { type: "string", maxLength: 50 },
    age: { type: "integer", minimum: 0, maximum: 150 },
    tags: { type: "array", items: { type: "string" } },
    agree: { type: "boolean" },
  },
  required: ["name"],
} satisfies JsonSchema;

beforeAll(async () => {
  weft = await startTestPlatform({
    env: {
      // The fuzz run is one client: the limits would turn it into a test of 429s.
      WEFT_RATE_LIMIT_REGISTER: "100000",
      WEFT_RATE_LIMIT_CLAIM: "100000",
      WEFT_RATE_LIMIT_REVOKE: "100000",
      WEFT_RATE_LIMIT_FORMS: "100000",
    },
  });
  const caller = await createTestIdentity(weft, "fuzzer@example.com");
  const call = async (procedure: string, input: unknown) => {
    const response = await fetch(`${weft.url}/rpc/${procedure.replace(".", "/")}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${caller.credential}` },
      body: JSON.stringify({ json: input }),
    });
    return ((await response.json()) as { json: Record<string, string> }).json;
  };
  const projectId = (await call("projects.create", { name: "Fuzzed" })).id as string;
  const doomedProjectId = (await call("projects.create", { name: "Fuzzed, to delete" })).id as string;
  const deploymentId = (
    await call("deployments.create", {
      projectId,
      manifest: {
        version: 1,
        workflows: [{ name: "take" }, { name: "hold" }],
        forms: [
          { name: "contact", workflow: "take", schema: formSchema },
          { name: "locked", workflow: "take", schema: formSchema, basicAuth: { username: "ann", password: "sesame" } },
        ],
        webhooks: [
          { name: "hook", workflow: "take" },
          { name: "signed", workflow: "take", secret: { header: "x-hook-secret", value: "s3cret-value" } },
        ],
        schedules: [{ name: "nightly", workflow: "take", cron: "0 0 * * *" }],
      },
      bundle: `export default { workflows: [
        { name: "take", run: async (input) => input },
        { name: "hold", run: async (input, ctx) => ctx.sleep("week", "7d") },
      ] };`,
    })
  ).id as string;
  const executionId = (await call("workflows.run", { projectId, workflow: "take", input: {} })).executionId as string;
  const traceId = (await call("workflows.getExecution", { executionId })).traceId as string;
  const heldExecutionId = (await call("workflows.run", { projectId, workflow: "hold", input: {} }))
    .executionId as string;
  const invitationId = (
    await call("access.invite", { workspaceId: caller.personalWorkspaceId, email: "carol@example.com", role: "member" })
  ).id as string;
  const member = await createTestIdentity(weft, "member@example.com");
  await joinWorkspace(weft, { workspaceId: caller.personalWorkspaceId, by: caller, member, role: "member" });
  registerSecret(fixtureIntegrationSecret);
  await call("integrations.create", {
    projectId,
    name: fixtureIntegration,
    kind: "secret",
    secrets: { value: fixtureIntegrationSecret },
  });
  const policyId = (
    await call("access.createFederationPolicy", {
      workspaceId: caller.personalWorkspaceId,
      projectId,
      issuer: fuzzedIssuers[0],
      audience: "weft",
      subject: "repo:fuzz/*",
      scopes: ["projects:read"],
    })
  ).id as string;
  const agent = await registerEmailAgent(weft, caller.email);
  const pending = await postJson(`${weft.url}/agent/auth`, emailRegistration("pending@example.com"));
  const page = await fetch(`${weft.url}/triggers/forms/${projectId}/contact`);
  fixture = {
    caller,
    projectId,
    doomedProjectId,
    deploymentId,
    executionId,
    heldExecutionId,
    traceId,
    invitationId,
    memberAccountId: member.accountId,
    agentId: agent.agentId,
    policyId,
    tokenId: await storeTestWaitToken(weft.database.db, { executionId, projectId, now: weft.clock.now() }),
    claimToken: pending.body.claim_token as string,
    hostedFormCsrf: formCsrfTokenOf(await page.text()),
  };
  fingerprint = await installChangeCounter(weft.database.db, watchedTables);
}, 300_000);

afterAll(async () => {
  if (tallies.length > 0) {
    console.log(
      `fuzz, seed ${seed}, ${runs} inputs per surface\n${formatFuzzTallies(tallies, (Date.now() - started) / 1000)}`,
    );
  }
  await weft?.stop();
});

const encoder = new TextEncoder();

/** A JSON body, then broken on the wire (truncated, bytes that are not UTF-8) and labelled with some content type. */
/** A `Cookie` header naming `name`: absent, a known value, or a hostile one. */
function studioCookie(name: string, known: string[]): fc.Arbitrary<Record<string, string | undefined>> {
  return fc
    .option(fc.oneof(fc.constantFrom(...known), fc.stringMatching(/^[\x21-\x7e]{0,80}$/)), { nil: undefined })
    .map((value) => ({ cookie: value === undefined ? undefined : `${name}=${value}` }));
}

function jsonPost(
  path: fc.Arbitrary<string>,
  value: fc.Arbitrary<unknown>,
  headers: fc.Arbitrary<Record<string, string | undefined>> = fc.constant({}),
  contentType = "application/json",
): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(
      path,
      mutatedValue(value).chain((body) => mutatedBody(encoder.encode(JSON.stringify(body) ?? ""))),
      mutatedContentType(contentType),
      headers,
    )
    .map(([to, body, type, extra]) => ({
      method: "POST" as const,
      path: to,
      headers: { "content-type": type, ...extra },
      body,
    }));
}

const bearer = () =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(`Bearer ${fixture.caller.credential}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        undefined,
        "Bearer",
        "Bearer wft_nope",
        "Basic Zm9vOmJhcg==",
        `bearer  ${"x".repeat(5000)}`,
      ),
    },
    {
      weight: 1,
      arbitrary: hostileString.map((text) => `Bearer ${text.replace(/[^\x20-\x7e]/g, "?").slice(0, 8000)}`),
    },
  );

const jwtLike = fc
  .tuple(fc.jsonValue({ maxDepth: 2 }), fc.jsonValue({ maxDepth: 2 }), fc.string({ maxLength: 40 }))
  .map((parts) => parts.map((part) => Buffer.from(JSON.stringify(part) ?? "").toString("base64url")).join("."));

/** Form fields, then broken on the wire as `jsonPost` breaks JSON. */
function formPost(path: string, fields: fc.Arbitrary<Record<string, string>>): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(
      fields.chain((record) => mutatedBody(encoder.encode(new URLSearchParams(record).toString()))),
      mutatedContentType("application/x-www-form-urlencoded"),
    )
    .map(([body, type]) => ({ method: "POST" as const, path, headers: { "content-type": type }, body }));
}

/** Every HTTP surface outside the RPC API; another one is one more entry. */
function httpSurfaces({ projectId, claimToken, tokenId, hostedFormCsrf, caller }: Fixture): FuzzSurface[] {
  const formPage = fc
    .tuple(hostileSegment([projectId, "prj_00000000000000000000000000"]), hostileSegment(["contact", "locked", "nope"]))
    .map(([project, form]) => `/triggers/forms/${project}/${form}`);
  const basicAuth = fc.constantFrom(
    undefined,
    `Basic ${Buffer.from("ann:sesame").toString("base64")}`,
    "Basic %%%",
    "Basic ",
  );
  const formFields = fc
    .tuple(
      fc.dictionary(
        fc.constantFrom("name", "age", "tags", "agree", "_csrf", "__proto__", "constructor"),
        hostileString,
        {
          maxKeys: 5,
        },
      ),
      fc.constantFrom(hostedFormCsrf, "", "nope"),
      fc.record({
        name: fc.string({ maxLength: 60 }),
        age: fc.integer().map(String),
        agree: fc.constantFrom("on", ""),
      }),
    )
    .map(([hostile, csrf, plain]) => new URLSearchParams({ ...plain, _csrf: csrf, ...hostile }).toString());
  const tokenPath = hostileSegment([tokenId, randomTokenId()]).map((id) => `/triggers/tokens/${id}`);
  return [
    {
      name: "agent-auth.register",
      request: jsonPost(
        fc.constant("/agent/auth"),
        fc.record({
          type: fc.constantFrom("identity_assertion", "password"),
          assertion_type: fc.constantFrom("verified_email", "urn:ietf:params:oauth:token-type:id-jag", "saml"),
          assertion: fc.oneof(fc.emailAddress(), jwtLike, fc.string()),
          requested_credential_type: fc.constantFrom("api_key", "jwt"),
        }),
      ),
    },
    {
      name: "agent-auth.claim",
      request: jsonPost(
        fc.constant("/agent/auth/claim/complete"),
        fc.record({
          claim_token: fc.oneof(fc.constant(claimToken), fc.string()),
          otp: fc.oneof(fc.stringMatching(/^\d{6}$/), fc.string()),
        }),
      ),
    },
    {
      name: "agent-auth.revoke",
      request: fc
        .tuple(
          mutatedContentType("application/logout+jwt"),
          jwtLike.chain((jwt) => mutatedBody(encoder.encode(jwt))),
        )
        .map(([type, body]) => ({
          method: "POST",
          path: "/agent/auth/revoke",
          headers: { "content-type": type },
          body,
        })),
    },
    {
      name: "oauth2.token",
      request: formPost(
        "/oauth2/token",
        fc.record(
          {
            grant_type: fc.constantFrom(
              "authorization_code",
              "refresh_token",
              "urn:ietf:params:oauth:grant-type:token-exchange",
              "client_credentials",
              "password",
            ),
            code: fc.oneof(fc.constant("woc_nope"), fc.string()),
            code_verifier: fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{43,128}$/), fc.string()),
            redirect_uri: fc.constantFrom("http://127.0.0.1:9/callback", "https://evil.example/", "%ff", ""),
            client_id: fc.oneof(fc.constantFrom("https://client.example/meta.json", "wcl_nope"), fc.string()),
            refresh_token: fc.oneof(fc.constant("wrt_nope"), fc.string()),
            subject_token: fc.oneof(jwtLike, fc.string()),
            subject_token_type: fc.constantFrom("urn:ietf:params:oauth:token-type:id_token", "urn:x", ""),
            resource: fc.constantFrom("http://127.0.0.1/mcp", "", "%ff"),
            scope: fc.string({ maxLength: 60 }),
          },
          { requiredKeys: [] },
        ),
      ),
    },
    {
      name: "oauth2.revoke",
      request: formPost(
        "/oauth2/revoke",
        fc.record(
          {
            token: fc.oneof(fc.constantFrom("wrt_nope", "weft_nope", "woc_nope"), fc.string()),
            token_type_hint: fc.oneof(fc.constantFrom("access_token", "refresh_token", "id_token"), fc.string()),
            client_id: fc.oneof(fc.constantFrom("https://client.example/meta.json", "wcl_nope"), fc.string()),
          },
          { requiredKeys: [] },
        ),
      ),
    },
    {
      name: "oauth2.register",
      request: jsonPost(
        fc.constant("/oauth2/register"),
        fc.record(
          {
            client_name: fc.string({ maxLength: 80 }),
            redirect_uris: fc.array(
              fc.oneof(
                fc.constantFrom("http://127.0.0.1:9/cb", "https://app.example/cb", "javascript:alert(1)"),
                fc.string(),
              ),
              { maxLength: 4 },
            ),
            grant_types: fc.array(fc.constantFrom("authorization_code", "refresh_token", "implicit"), { maxLength: 3 }),
            token_endpoint_auth_method: fc.constantFrom("none", "client_secret_basic", "private_key_jwt"),
            scope: fc.string({ maxLength: 60 }),
          },
          { requiredKeys: [] },
        ),
      ),
    },
    {
      name: "oauth2.authorize.get",
      request: fc
        .record(
          {
            response_type: fc.constantFrom("code", "token", ""),
            client_id: fc.oneof(fc.constantFrom("https://client.example/meta.json", "wcl_nope"), fc.string()),
            redirect_uri: fc.constantFrom("http://127.0.0.1:9/cb", "https://evil.example/", "%ff"),
            code_challenge: fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{43}$/), fc.string()),
            code_challenge_method: fc.constantFrom("S256", "plain", ""),
            state: fc.string({ maxLength: 40 }),
            scope: fc.string({ maxLength: 60 }),
            resource: fc.constantFrom("http://127.0.0.1/mcp", ""),
          },
          { requiredKeys: [] },
        )
        .map((query) => ({ method: "GET" as const, path: `/oauth2/authorize?${new URLSearchParams(query)}` })),
    },
    {
      name: "oauth2.approve.get",
      request: fc
        .record(
          {
            token: fc.oneof(fc.stringMatching(/^apv_[A-Za-z0-9_-]{43}$/), fc.string()),
            answer: fc.oneof(fc.constantFrom("cancel", "approve", ""), fc.string()),
          },
          { requiredKeys: [] },
        )
        .map((query) => ({ method: "GET" as const, path: `/oauth2/approve?${new URLSearchParams(query)}` })),
    },
    {
      name: "oauth2.approve.post",
      request: fc
        .tuple(
          fc.oneof(fc.stringMatching(/^apv_[A-Za-z0-9_-]{43}$/), fc.string()),
          fc.record(
            {
              csrf: fc.oneof(fc.constant(hostedFormCsrf), fc.string()),
              decision: fc.oneof(fc.constantFrom("approve", "deny", "cancel"), fc.string()),
            },
            { requiredKeys: [] },
          ),
        )
        .chain(([token, fields]) => formPost(`/oauth2/approve?${new URLSearchParams({ token })}`, fc.constant(fields))),
    },
    {
      name: "mcp.post",
      request: jsonPost(
        fc.constant("/mcp"),
        fc.record(
          {
            jsonrpc: fc.constantFrom("2.0", "1.0"),
            id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.constant(null)),
            method: fc.constantFrom(
              "initialize",
              "tools/list",
              "tools/call",
              "resources/list",
              "resources/read",
              "ping",
              "nope",
            ),
            params: fc.oneof(
              fc.record({
                name: fc.constantFrom("projects_list", "workflows_run", "nope"),
                arguments: fc.jsonValue({ maxDepth: 3 }),
              }),
              fc.record({ uri: fc.oneof(fc.constant(`weft://projects/${projectId}`), fc.string()) }),
              fc.jsonValue({ maxDepth: 3 }),
            ),
          },
          { requiredKeys: ["method"] },
        ),
        fc.record({
          accept: fc.constantFrom("application/json, text/event-stream", "text/html", undefined),
          authorization: fc.constantFrom(
            `Bearer ${caller.credential}`,
            `Bearer ${caller.credential}`,
            "Bearer wft_nope",
            undefined,
          ),
        }),
      ),
    },
    {
      name: "studio.sign-in",
      request: jsonPost(
        fc.constant("/studio/api/sign-in"),
        fc.record({ email: fc.oneof(fc.emailAddress(), fc.string()) }),
      ),
    },
    {
      name: "studio.sign-in.complete",
      request: jsonPost(
        fc.constant("/studio/api/sign-in/complete"),
        fc.record({ code: fc.oneof(fc.stringMatching(/^\d{6}$/), fc.string()) }),
        studioCookie("weft_studio_sign_in", [claimToken, "clm_x"]),
      ),
    },
    {
      name: "studio.sign-in.link",
      request: hostileSegment([`wsl_${"a".repeat(43)}`, "wsl_"]).map((token) => ({
        method: "GET" as const,
        path: `/studio/api/sign-in/link?token=${token}`,
      })),
    },
    {
      name: "studio.sign-in.first",
      request: formPost(
        "/studio/api/sign-in/first",
        fc.record({
          token: fc.oneof(fc.constant(`wsl_${"a".repeat(43)}`), fc.string()),
          email: fc.oneof(fc.emailAddress(), fc.string()),
        }),
      ),
    },
    {
      name: "studio.rpc",
      request: jsonPost(
        fc.constantFrom("/studio/rpc/projects/create", "/studio/rpc/agents/revokeAll", "/studio/rpc/nothing"),
        fc.record({ json: fc.record({ name: fc.string(), workspaceId: fc.string() }) }),
        fc
          .tuple(
            studioCookie("weft_studio_session", [`wss_${"a".repeat(43)}`]),
            fc.constantFrom(undefined, "wsc_x", ""),
          )
          .map(([cookie, csrf]) => ({ ...cookie, "x-weft-csrf": csrf })),
      ),
    },
    {
      name: "ingress.hosted-form.get",
      request: fc
        .tuple(formPage, basicAuth, fc.constantFrom("", "?x=1", "?name=%ff", "?__proto__=1"))
        .map(([path, authorization, query]) => ({ method: "GET", path: path + query, headers: { authorization } })),
    },
    {
      name: "ingress.hosted-form.post",
      request: fc
        .tuple(
          formPage,
          basicAuth,
          formFields.chain((fields) => mutatedBody(encoder.encode(fields))),
          mutatedContentType("application/x-www-form-urlencoded"),
        )
        .map(([path, authorization, body, type]) => ({
          method: "POST",
          path,
          headers: { authorization, "content-type": type },
          body,
        })),
    },
    {
      name: "ingress.programmatic-form.post",
      request: jsonPost(
        fc
          .tuple(
            hostileSegment(["contact", "locked", "nope"]),
            fc.constantFrom(
              `?projectId=${projectId}`,
              "",
              "?projectId=prj_00000000000000000000000000",
              "?projectId=%ff",
            ),
          )
          .map(([form, query]) => `/forms/${form}${query}`),
        arbitraryOfJsonSchema(formSchema),
        fc.record({
          "idempotency-key": fc.constantFrom(undefined, "key-1", "k".repeat(201)),
          authorization: basicAuth,
        }),
      ),
    },
    {
      name: "ingress.webhook.post",
      request: jsonPost(
        fc
          .tuple(
            hostileSegment([projectId, "prj_00000000000000000000000000"]),
            hostileSegment(["hook", "signed", "nope"]),
          )
          .map(([project, hook]) => `/triggers/webhooks/${project}/${hook}`),
        fc.jsonValue({ maxDepth: 3 }),
        fc.record({
          "idempotency-key": fc.constantFrom(undefined, "key-1", "key-2", " "),
          "x-hook-secret": fc.constantFrom(undefined, "s3cret-value", "wrong"),
        }),
      ),
    },
    {
      name: "ingress.wait-token.get",
      request: tokenPath.map((path) => ({ method: "GET", path })),
    },
    {
      name: "ingress.wait-token.post",
      request: fc.oneof(
        jsonPost(tokenPath, fc.record({ approved: fc.boolean(), note: fc.string() })),
        fc
          .tuple(tokenPath, fc.constantFrom("decision=approve", "decision=reject&_csrf=x", "_csrf=%ff", ""))
          .map(([path, body]) => ({
            method: "POST" as const,
            path,
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body,
          })),
      ),
    },
  ];
}

/** What the fixture offers the fuzz hints of `contractCalls`. */
function fuzzTarget(): FuzzTarget {
  return {
    known: [
      fixture.projectId,
      fixture.deploymentId,
      fixture.executionId,
      fixture.traceId,
      fixture.invitationId,
      fixture.agentId,
      fixture.policyId,
      fixture.tokenId,
      fixture.caller.personalWorkspaceId,
      fixture.caller.accountId,
      fixture.memberAccountId,
      fixtureIntegration,
      "take",
      "nightly",
      "contact",
    ],
    projectId: fixture.projectId,
    doomedProjectId: fixture.doomedProjectId,
    executionId: fixture.executionId,
    heldExecutionId: fixture.heldExecutionId,
    deployedNames,
    issuers: fuzzedIssuers,
  };
}

function rpcSurface(procedure: ProcedureName, inputSchema: unknown): FuzzSurface {
  const hints = contractCalls[procedure].fuzz ?? {};
  const target = fuzzTarget();
  const jsonSchema = z.toJSONSchema(inputSchema as z.ZodType, { io: "input", unrepresentable: "any" }) as JsonSchema;
  const input = arbitraryOfJsonSchema(jsonSchema, {
    known: hints.known?.(target) ?? target.known,
    overrides: hints.overrides?.(target) ?? {},
  });
  return {
    name: `rpc.${procedure}`,
    request: jsonPost(
      fc.constant(`/rpc/${procedure.replaceAll(".", "/")}`),
      input.map((json) => ({ json })),
      bearer().map((authorization) => ({ authorization })),
    ),
  };
}

describe("fuzzing: no input gets a 5xx, hangs, stops the server or changes anything when refused", () => {
  const procedures = contractProcedureInputs();

  it("has a call for every procedure of the contract, and every one can be generated", () => {
    expect(proceduresWithoutCall()).toEqual([]);
    for (const [name, schema] of procedures) {
      expect(fc.sample(rpcSurface(name, schema).request, { numRuns: 3, seed }), name).toHaveLength(3);
    }
  });

  // Only the names are read at collection time, before the platform and its fixture exist.
  const unnamed = "x";
  const namingFixture: Fixture = {
    caller: {
      email: unnamed,
      accountId: unnamed,
      personalWorkspaceId: unnamed,
      credentialId: unnamed,
      credential: unnamed,
    },
    projectId: unnamed,
    doomedProjectId: unnamed,
    deploymentId: unnamed,
    executionId: unnamed,
    heldExecutionId: unnamed,
    traceId: unnamed,
    invitationId: unnamed,
    memberAccountId: unnamed,
    agentId: unnamed,
    policyId: unnamed,
    tokenId: unnamed,
    claimToken: unnamed,
    hostedFormCsrf: unnamed,
  };
  const surfaceNames = [
    ...httpSurfaces(namingFixture).map((surface) => surface.name),
    ...procedures.map(([name]) => `rpc.${name}`),
  ];

  it.each(surfaceNames)(
    "%s",
    async (name) => {
      const procedure = procedures.find(([each]) => `rpc.${each}` === name);
      const surface =
        procedure === undefined
          ? httpSurfaces(fixture).find((each) => each.name === name)
          : rpcSurface(procedure[0], procedure[1]);
      if (surface === undefined) throw new Error(`no surface ${name}`);
      const began = Date.now();
      const tally = await fuzzSurface(surface, { baseUrl: weft.url, runs, seed, fingerprint });
      tallies.push(tally);
      // A full run takes hours: each surface's figures are printed as it ends, not only at the end.
      if (runs > seedRuns) console.log(formatFuzzTallies([tally], (Date.now() - began) / 1000));
      expect(tally.failures).toEqual([]);
      expect(tally.inputs).toBe(runs);
    },
    30_000 + runs * 100,
  );
});
