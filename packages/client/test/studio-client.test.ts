import { createStudioClient, isRpcError, requestIdOf, type StudioClient } from "@weft/client";
import { studioCsrfHeader, studioSessionSchema } from "@weft/contract";
import { claimCodeOf, decide, mailingTestPlatform, registerSecret } from "@weft/testing";
import { describe, expect, it } from "vitest";

const platform = mailingTestPlatform();

/** A browser's part: the cookies the platform sets, sent back on every call, and the CSRF token it handed out. */
function browserClient(): { client: StudioClient; cookies: Map<string, string>; csrf: { token?: string } } {
  const cookies = new Map<string, string>();
  const csrf: { token?: string } = {};
  const client = createStudioClient({
    baseUrl: platform.weft.url,
    headers: (): Record<string, string> => (csrf.token === undefined ? {} : { [studioCsrfHeader]: csrf.token }),
    fetch: async (input, init) => {
      const request = new Request(input, init);
      if (cookies.size > 0) {
        request.headers.set("cookie", [...cookies].map(([name, value]) => `${name}=${value}`).join("; "));
      }
      const response = await fetch(request);
      for (const header of response.headers.getSetCookie()) {
        const [pair = ""] = header.split(";");
        const at = pair.indexOf("=");
        if (/Max-Age=0/i.test(header)) cookies.delete(pair.slice(0, at));
        else cookies.set(pair.slice(0, at), pair.slice(at + 1));
      }
      return response;
    },
  });
  return { client, cookies, csrf };
}

describe("createStudioClient", () => {
  it("signs in, reads the session, calls a procedure on it and signs out, all through one client", async () => {
    const email = "studio-client@example.com";
    const { client, cookies, csrf } = browserClient();

    const started = await client.session.signIn({ email });
    expect(new Date(started.expiresAt).getTime()).toBeGreaterThan(platform.weft.clock.now().getTime());
    expect(cookies.has("weft_studio_sign_in")).toBe(true);

    const approved = await decide(platform.smtp.approvalLinkFor(email), "approve");
    const completed = await client.session.completeSignIn({ code: claimCodeOf(approved.html) });
    registerSecret(completed.csrfToken);
    expect(completed.email).toBe(email);
    expect(cookies.has("weft_studio_sign_in")).toBe(false);
    expect(cookies.has("weft_studio_session")).toBe(true);

    const session = await client.session.get();
    expect(studioSessionSchema.parse(session)).toEqual({
      email,
      accountId: expect.stringMatching(/^acc_/),
      csrfToken: completed.csrfToken,
      expiresAt: expect.any(String),
    });

    csrf.token = session.csrfToken;
    const workspaces = await client.access.listWorkspaces({ pagination: { first: 10 } });
    expect(workspaces.results).toEqual([expect.objectContaining({ personal: true, role: "owner" })]);

    await client.session.signOut();
    expect(cookies.has("weft_studio_session")).toBe(false);
  });

  it("refuses with the server's message, status and request id", async () => {
    const { client } = browserClient();
    const signedOut = await client.session.get().catch((error: unknown) => error);
    expect(isRpcError(signedOut, "UNAUTHORIZED")).toBe(true);
    expect(signedOut).toMatchObject({
      status: 401,
      message: "Sign in to Weft Studio: the session is missing, expired or revoked.",
      data: { error: "unauthenticated" },
    });
    expect(requestIdOf(signedOut)).toMatch(/.+/);

    await expect(client.session.signIn({ email: "nobody" })).rejects.toMatchObject({
      status: 400,
      message: "Enter your email address, like you@example.com.",
    });
    await expect(client.session.completeSignIn({ code: "123456" })).rejects.toMatchObject({
      status: 400,
      message: "No sign-in is under way in this browser; start again.",
    });
  });
});
