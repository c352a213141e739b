import {
  emailRegistration,
  idJagRegistration,
  postJson,
  startTestPlatform,
  type TestPlatform,
  trustingTestPlatform,
} from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const idJagType = "urn:ietf:params:oauth:token-type:id-jag";
let plain: TestPlatform;
const withIssuer = trustingTestPlatform();

beforeAll(async () => {
  plain = await startTestPlatform();
});

afterAll(async () => {
  await plain.stop();
});

describe("authorization server metadata", () => {
  it("describes the agent registration endpoints of this instance", async () => {
    const response = await fetch(`${withIssuer.weft.url}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    const url = withIssuer.weft.url;
    expect(metadata).toMatchObject({
      issuer: url,
      revocation_endpoint: `${url}/oauth2/revoke`,
      revocation_endpoint_auth_methods_supported: ["none"],
      scopes_supported: ["projects:read", "projects:write", "deployments:read", "deployments:write"],
      identity_assertion_types_supported: [idJagType, "verified_email"],
      agent_auth: {
        skill: `${url}/auth.md`,
        register_uri: `${url}/agent/auth`,
        claim_uri: `${url}/agent/auth/claim/complete`,
        revocation_uri: `${url}/agent/auth/revoke`,
        identity_types_supported: ["identity_assertion"],
        identity_assertion: {
          assertion_types_supported: [idJagType, "verified_email"],
          credential_types_supported: ["api_key"],
        },
        events_supported: ["https://schemas.workos.com/events/agent/auth/identity/assertion/revoked"],
      },
    });
  });

  it("offers only verified_email while no issuer is trusted", async () => {
    const metadata = (await (await fetch(`${plain.url}/.well-known/oauth-authorization-server`)).json()) as {
      identity_assertion_types_supported: string[];
      agent_auth: { identity_assertion: { assertion_types_supported: string[] } };
    };
    expect(metadata.identity_assertion_types_supported).toEqual(["verified_email"]);
    expect(metadata.agent_auth.identity_assertion.assertion_types_supported).toEqual(["verified_email"]);
  });

  it("serves /auth.md with this instance's real addresses", async () => {
    const response = await fetch(`${withIssuer.weft.url}/auth.md`);
    expect(response.headers.get("content-type")).toContain("text/markdown");
    const guide = await response.text();
    expect(guide).toContain(`curl -s -X POST ${withIssuer.weft.url}/agent/auth `);
    expect(guide).toContain(`${withIssuer.weft.url}/agent/auth/claim/complete`);
    expect(guide).toContain(`\`claim_uri\` (${withIssuer.weft.url}/agent/auth/claim/complete)`);
    expect(guide).toContain(`curl -s -X POST ${withIssuer.weft.url}/oauth2/token`);
    expect(guide).toContain(`curl -s -X POST ${withIssuer.weft.url}/oauth2/revoke -d token=`);
    expect(guide).toContain(withIssuer.idp.issuer);
    const plainGuide = await (await fetch(`${plain.url}/auth.md`)).text();
    expect(plainGuide).toContain("ID-JAG registration is not enabled on this instance");
  });
});

describe("an authorization server under a path", () => {
  it("serves metadata at the RFC 8414 location and every endpoint under the path", async () => {
    const prefixed = await startTestPlatform({
      configure: (config) => ({ ...config, authUrl: `${config.baseUrl}/auth` }),
    });
    try {
      const authUrl = `${prefixed.url}/auth`;
      const metadata = (await (await fetch(`${prefixed.url}/.well-known/oauth-authorization-server/auth`)).json()) as {
        issuer: string;
        agent_auth: { register_uri: string };
      };
      expect(metadata.issuer).toBe(authUrl);
      expect(metadata.agent_auth.register_uri).toBe(`${authUrl}/agent/auth`);
      const registered = await postJson(metadata.agent_auth.register_uri, emailRegistration("prefixed@example.com"));
      expect(registered.status).toBe(201);
      const mailbox = (await (
        await fetch(prefixed.mailboxUrl ?? "", { headers: { accept: "application/json" } })
      ).json()) as { messages: { text: string }[] };
      const link = /http\S+\/agent\/auth\/approve\?token=apv_\S+/.exec(mailbox.messages[0]?.text ?? "")?.[0] ?? "";
      expect(link.startsWith(`${authUrl}/agent/auth/approve?token=`)).toBe(true);
      expect((await fetch(link)).status).toBe(200);
    } finally {
      await prefixed.stop();
    }
  });
});

describe("registration request validation", () => {
  const register = (body: unknown) => postJson(`${plain.url}/agent/auth`, body);
  const valid = emailRegistration("someone@example.com");

  it("refuses malformed bodies with invalid_request", async () => {
    for (const field of ["type", "assertion_type", "assertion", "requested_credential_type"]) {
      const body: Record<string, unknown> = { ...valid };
      delete body[field];
      expect(await register(body)).toMatchObject({ status: 400, body: { error: "invalid_request" } });
    }
    expect(await register("[1,2]")).toMatchObject({ status: 400, body: { error: "invalid_request" } });
    expect(await register("{oops")).toMatchObject({ status: 400, body: { error: "invalid_request" } });
    const form = await fetch(`${plain.url}/agent/auth`, { method: "POST", body: new URLSearchParams(valid) });
    expect(form.status).toBe(400);
    expect(await form.json()).toMatchObject({ error: "invalid_request" });
  });

  it("names the unsupported part of a request", async () => {
    expect(await register({ ...valid, type: "password" })).toMatchObject({
      status: 400,
      body: { error: "unsupported_identity_type" },
    });
    expect(await register({ ...valid, assertion_type: "saml" })).toMatchObject({
      status: 400,
      body: { error: "unsupported_assertion_type" },
    });
    expect(await register({ ...valid, requested_credential_type: "oauth_token" })).toMatchObject({
      status: 400,
      body: { error: "unsupported_credential_type" },
    });
  });

  it("refuses ID-JAG with issuer_not_enabled while no issuer is trusted", async () => {
    const assertion = await withIssuer.idp.sign({ iss: withIssuer.idp.issuer, sub: "u", aud: plain.url });
    expect(await register(idJagRegistration(assertion))).toMatchObject({
      status: 400,
      body: { error: "issuer_not_enabled" },
    });
    const logout = await fetch(`${plain.url}/agent/auth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/logout+jwt" },
      body: assertion,
    });
    expect(await logout.json()).toMatchObject({ error: "issuer_not_enabled" });
    expect(withIssuer.idp.jwksFetches()).toBe(0);
  });
});

describe("dev outbox", () => {
  it("keeps mail at /dev/mailbox when no SMTP server is configured, and only then", async () => {
    const response = await postJson(`${plain.url}/agent/auth`, emailRegistration("outbox@example.com"));
    expect(response.status).toBe(201);
    const mailbox = (await (
      await fetch(plain.mailboxUrl ?? "", { headers: { accept: "application/json" } })
    ).json()) as { messages: { to: string; text: string }[] };
    expect(mailbox.messages[0]).toMatchObject({ to: "outbox@example.com" });
    expect(mailbox.messages[0]?.text).toMatch(new RegExp(`${plain.url}/agent/auth/approve\\?token=apv_`));
    const html = await (await fetch(plain.mailboxUrl ?? "")).text();
    expect(html).toContain("outbox@example.com");

    const smtpPlatform = await startTestPlatform({ env: { SMTP_URL: "smtp://127.0.0.1:1" } });
    try {
      expect((await fetch(`${smtpPlatform.url}/dev/mailbox`)).status).toBe(404);
      // Nothing listens on that SMTP port: the registration cannot reach the person.
      const failed = await postJson(`${smtpPlatform.url}/agent/auth`, emailRegistration("unreachable@example.com"));
      expect(failed).toMatchObject({ status: 500, body: { error: "server_error" } });
    } finally {
      await smtpPlatform.stop();
    }
  });
});
