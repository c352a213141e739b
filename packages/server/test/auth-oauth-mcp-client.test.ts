import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  auth,
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  type OAuthClientProvider,
  UnauthorizedError,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { callRpc, hasChromium, launchChromium, mailingTestPlatform, registerSecret } from "@weft/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let redirectUrl: string;
/** The client's loopback listener, as a native MCP client runs one, keeping the callbacks it gets. */
let listener: Server;
const callbacks: URL[] = [];
const platform = mailingTestPlatform();
let browser: Browser;

beforeAll(async () => {
  listener = createServer((request, response) => {
    callbacks.push(new URL(request.url ?? "/", redirectUrl));
    response.end("You can close this window.");
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  redirectUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/oauth/callback`;
  if (hasChromium) browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
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

/**
 * A client that keeps only the access token. Holding a refresh token, the SDK answers a 403
 * insufficient_scope by refreshing, which cannot widen the scope (RFC 6749 §6), and gives up when the
 * retry is refused alike (https://github.com/modelcontextprotocol/typescript-sdk/issues/2255);
 * without one it sends the person back to the authorization server for the wider scope.
 */
class AccessTokenOnlyProvider extends MemoryProvider {
  override saveTokens(tokens: OAuthTokens): void {
    const { refresh_token: _, ...kept } = tokens;
    super.saveTokens(kept);
  }
}

/**
 * What the person does in their browser for an authorization request: signs in with their email,
 * approves the mail's link, and allows the client on the consent page. Answers the code the client
 * receives and the scopes the consent page showed.
 */
async function signInAndAllow(authorizationUrl: URL, email: string): Promise<{ code: string; scopes: string[] }> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(authorizationUrl.href);
    await page.getByLabel("Email address").fill(email);
    await page.getByRole("button", { name: "Send the link" }).click();
    await page.getByRole("heading", { name: "Check your mail" }).waitFor();
    await page.goto(platform.smtp.approvalLinkFor(email));
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("heading", { name: /Allow SDK Test Client/ }).waitFor();
    expect(await page.locator("#redirect-host").textContent()).toBe(new URL(redirectUrl).host);
    const scopes = await page.locator("#scopes li").allTextContents();
    await page.getByRole("button", { name: "Allow" }).click();
    await page.getByText("You can close this window.").waitFor();
    const callback = callbacks.findLast((url) => url.pathname === "/oauth/callback");
    expect(callback?.searchParams.get("state")).toBe("sdk-state-42");
    return { code: callback?.searchParams.get("code") as string, scopes };
  } finally {
    await context.close();
  }
}

describe.skipIf(!hasChromium)("an MCP client signs in on its own", () => {
  it("discovers Weft with the SDK's own discovery functions", async () => {
    const resource = await discoverOAuthProtectedResourceMetadata(platform.weft.url);
    const issuer = resource.authorization_servers?.[0] as string;
    const metadata = await discoverAuthorizationServerMetadata(issuer);
    expect(metadata).toMatchObject({
      authorization_endpoint: `${platform.weft.url}/oauth2/authorize`,
      token_endpoint: `${platform.weft.url}/oauth2/token`,
      registration_endpoint: `${platform.weft.url}/oauth2/register`,
      code_challenge_methods_supported: ["S256"],
    });
  });

  it("registers, sends the person through sign-in and consent in a browser, and calls a tool and /rpc", async () => {
    const provider = new MemoryProvider();
    // An MCP client knows nothing but the endpoint's address.
    const serverUrl = `${platform.weft.url}/mcp`;
    expect(await auth(provider, { serverUrl })).toBe("REDIRECT");
    expect(provider.client?.client_id).toMatch(/^cli_/);
    const authorizationUrl = provider.authorizationUrl as URL;
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");

    const { code } = await signInAndAllow(authorizationUrl, "mcp-person@example.com");
    expect(await auth(provider, { serverUrl, authorizationCode: code })).toBe("AUTHORIZED");

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
    expect((await callRpc(platform.weft.url, "projects.list", {}, { token: accessToken })).status).toBe(200);
    const agents = await callRpc(platform.weft.url, "agents.list", {}, { token: accessToken });
    expect(agents.json).toMatchObject({ results: [{ type: "oauth-client", email: "mcp-person@example.com" }] });

    // Once the access token nears its end, the SDK refreshes it without the person.
    platform.weft.clock.advance(60 * 60 * 1000);
    expect((await callRpc(platform.weft.url, "projects.list", {}, { token: accessToken })).status).toBe(401);
    expect(await auth(provider, { serverUrl })).toBe("AUTHORIZED");
    const refreshed = provider.saved?.access_token as string;
    expect(refreshed).not.toBe(accessToken);
    expect((await callRpc(platform.weft.url, "projects.list", {}, { token: refreshed })).status).toBe(200);
  }, 90_000);

  it("steps up: refused a tool beyond its scope with 403 insufficient_scope, the SDK asks the person for the wider scope, then the call succeeds", async () => {
    const provider = new AccessTokenOnlyProvider();
    const serverUrl = `${platform.weft.url}/mcp`;
    // A client that asks for no more than it needs at first.
    expect(await auth(provider, { serverUrl, scope: "projects:read" })).toBe("REDIRECT");
    const narrow = await signInAndAllow(provider.authorizationUrl as URL, "step-up@example.com");
    expect(narrow.scopes).toEqual(["projects:read"]);
    expect(await auth(provider, { serverUrl, authorizationCode: narrow.code })).toBe("AUTHORIZED");
    expect(provider.saved?.scope).toBe("projects:read");

    const transport = new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider });
    const client = new Client({ name: "sdk-test-client", version: "1.0.0" });
    await client.connect(transport);
    try {
      expect((await client.callTool({ name: "projects_list", arguments: {} })).isError).toBeFalsy();
      provider.authorizationUrl = undefined;
      await expect(client.callTool({ name: "projects_create", arguments: { name: "Stepped up" } })).rejects.toThrow(
        UnauthorizedError,
      );
      const stepUp = provider.authorizationUrl as URL | undefined;
      expect(stepUp?.searchParams.get("scope")).toBe("projects:read projects:write");
      const wide = await signInAndAllow(stepUp as URL, "step-up@example.com");
      expect(wide.scopes).toEqual(["projects:read", "projects:write"]);
      await transport.finishAuth(wide.code);
      expect(provider.saved?.scope).toBe("projects:read projects:write");

      const created = await client.callTool({ name: "projects_create", arguments: { name: "Stepped up" } });
      expect(created.isError).toBeFalsy();
      expect(created.structuredContent).toMatchObject({ name: "Stepped up" });
    } finally {
      await client.close();
    }
  }, 90_000);
});
