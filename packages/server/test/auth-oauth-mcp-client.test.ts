import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  auth,
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  type OAuthClientProvider,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import {
  callRpc,
  hasChromium,
  launchChromium,
  registerSecret,
  type SmtpSink,
  startSmtpSink,
  startTestPlatform,
  type TestPlatform,
} from "@weft/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let redirectUrl: string;
/** The client's loopback listener, as a native MCP client runs one, keeping the callbacks it gets. */
let listener: Server;
const callbacks: URL[] = [];
let smtp: SmtpSink;
let server: TestPlatform;
let browser: Browser;

beforeAll(async () => {
  listener = createServer((request, response) => {
    callbacks.push(new URL(request.url ?? "/", redirectUrl));
    response.end("You can close this window.");
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  redirectUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/oauth/callback`;
  smtp = await startSmtpSink();
  server = await startTestPlatform({ env: { SMTP_URL: smtp.url } });
  if (hasChromium) browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server.stop();
  await smtp.close();
  await new Promise((resolve) => listener.close(resolve));
});

/** What an MCP client keeps between the steps of its sign-in: in memory, as a test client may. */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;

  get redirectUrl(): string {
    return redirectUrl;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "SDK Test Client",
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state(): string {
    return "sdk-state-42";
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.client = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    registerSecret(tokens.access_token);
    if (tokens.refresh_token !== undefined) registerSecret(tokens.refresh_token);
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

describe.skipIf(!hasChromium)("an MCP client signs in on its own", () => {
  it("discovers Weft with the SDK's own discovery functions", async () => {
    const resource = await discoverOAuthProtectedResourceMetadata(server.url);
    const issuer = resource.authorization_servers?.[0] as string;
    const metadata = await discoverAuthorizationServerMetadata(issuer);
    expect(metadata).toMatchObject({
      authorization_endpoint: `${server.url}/oauth2/authorize`,
      token_endpoint: `${server.url}/oauth2/token`,
      registration_endpoint: `${server.url}/oauth2/register`,
      code_challenge_methods_supported: ["S256"],
    });
  });

  it("registers, sends the person through sign-in and consent in a browser, and calls a tool and /rpc", async () => {
    const provider = new MemoryProvider();
    // An MCP client knows nothing but the endpoint's address.
    const serverUrl = `${server.url}/mcp`;
    expect(await auth(provider, { serverUrl })).toBe("REDIRECT");
    expect(provider.client?.client_id).toMatch(/^cli_/);
    const authorizationUrl = provider.authorizationUrl as URL;
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");

    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await page.goto(authorizationUrl.href);
      await page.getByLabel("Email address").fill("mcp-person@example.com");
      await page.getByRole("button", { name: "Send the link" }).click();
      await page.getByRole("heading", { name: "Check your mail" }).waitFor();
      await page.goto(smtp.approvalLinkFor("mcp-person@example.com"));
      await page.getByRole("button", { name: "Approve" }).click();
      await page.getByRole("heading", { name: /Allow SDK Test Client/ }).waitFor();
      expect(await page.locator("#redirect-host").textContent()).toBe(new URL(redirectUrl).host);
      await page.getByRole("button", { name: "Allow" }).click();
      await page.getByText("You can close this window.").waitFor();
      const callback = callbacks.find((url) => url.pathname === "/oauth/callback");
      expect(callback?.searchParams.get("state")).toBe("sdk-state-42");
      const code = callback?.searchParams.get("code") as string;
      expect(await auth(provider, { serverUrl, authorizationCode: code })).toBe("AUTHORIZED");
    } finally {
      await context.close();
    }

    const client = new Client({ name: "sdk-test-client", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }));
    try {
      const created = await client.callTool({ name: "projects_create", arguments: { name: "Signed in over MCP" } });
      expect(created.isError).toBeFalsy();
      expect(created.structuredContent).toMatchObject({ name: "Signed in over MCP" });
    } finally {
      await client.close();
    }

    const accessToken = provider.saved?.access_token as string;
    expect((await callRpc(server.url, "projects.list", {}, { token: accessToken })).status).toBe(200);
    const agents = await callRpc(server.url, "agents.list", {}, { token: accessToken });
    expect(agents.json).toMatchObject({ results: [{ type: "oauth-client", email: "mcp-person@example.com" }] });

    // Once the access token nears its end, the SDK refreshes it without the person.
    server.clock.advance(60 * 60 * 1000);
    expect((await callRpc(server.url, "projects.list", {}, { token: accessToken })).status).toBe(401);
    expect(await auth(provider, { serverUrl })).toBe("AUTHORIZED");
    const refreshed = provider.saved?.access_token as string;
    expect(refreshed).not.toBe(accessToken);
    expect((await callRpc(server.url, "projects.list", {}, { token: refreshed })).status).toBe(200);
  }, 90_000);
});
