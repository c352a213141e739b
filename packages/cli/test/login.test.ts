import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { completeClaim, discover, registerWithEmail } from "@weft/client";
import { createTestIdentity } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliError } from "../src/errors.ts";
import { loginWithEmail } from "../src/login-flow.ts";
import { Output } from "../src/output.ts";
import { approveFromMail, type PlatformWithMail, startPlatformWithMail } from "./support/platform.ts";
import { parseJson, runCli, startCli } from "./support/run-cli.ts";

let platform: PlatformWithMail;
let apiUrl: string;

beforeAll(async () => {
  platform = await startPlatformWithMail();
  apiUrl = platform.weft.url;
});

afterAll(async () => {
  await platform?.stop();
});

const mode = (path: string) => statSync(path).mode & 0o777;
const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

/** Runs `weft login --email` without a terminal: approve from the mail, then pipe the code(s) in. */
async function login(email: string, env: Record<string, string>, codes: (code: string) => string[] = (code) => [code]) {
  const cli = startCli(["login", "--email", email, "--api-url", apiUrl], { env });
  const code = await approveFromMail(platform.smtp, email);
  await cli.waitFor((output) => output.includes("standard input"));
  cli.write(
    codes(code)
      .map((line) => `${line}\n`)
      .join(""),
  );
  cli.end();
  return cli.result;
}

function otherCode(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, "0");
}

describe("weft login with a verified email", () => {
  it("logs in end to end: approval through the received mail, code on stdin; stores the credential 0600 under $XDG_CONFIG_HOME", async () => {
    const home = tempDir("weft-home-");
    const xdg = tempDir("weft-xdg-");
    const result = await login("ada@example.com", { HOME: home, XDG_CONFIG_HOME: xdg });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("We sent a mail to ada@example.com");
    expect(result.stdout).toContain("Logged in as ada@example.com");
    const path = join(xdg, "weft", "credentials");
    const stored = JSON.parse(readFileSync(path, "utf8")) as { accessToken: string };
    expect(Object.keys(stored)).toEqual(["accessToken"]);
    expect(mode(path)).toBe(0o600);
    expect(mode(join(xdg, "weft"))).toBe(0o700);

    const whoami = await runCli(["whoami", "--json", "--api-url", apiUrl], {
      env: { HOME: home, XDG_CONFIG_HOME: xdg },
    });
    expect(whoami.code).toBe(0);
    expect(parseJson(whoami)).toMatchObject({
      email: "ada@example.com",
      scopes: expect.arrayContaining(["projects:read", "deployments:write"]),
      expires: expect.any(String),
      workspaces: [{ id: expect.stringMatching(/^wsp_/), name: expect.any(String), role: "owner" }],
      credentialSource: path,
      warning: null,
    });
  });

  it("stores the credential under ~/.config/weft without XDG_CONFIG_HOME", async () => {
    const home = tempDir("weft-home-");
    const result = await login("grace@example.com", { HOME: home });
    expect(result.code).toBe(0);
    const path = join(home, ".config", "weft", "credentials");
    expect(mode(path)).toBe(0o600);
    expect(mode(join(home, ".config", "weft"))).toBe(0o700);
    const whoami = await runCli(["whoami", "--api-url", apiUrl], { env: { HOME: home } });
    expect(whoami.code).toBe(0);
    expect(whoami.stdout).toMatch(/account\s+grace@example\.com/);
  });

  it("ends once logged in while its standard input stays open, as a shell's does that runs it among other commands", async () => {
    const home = tempDir("weft-home-");
    const cli = startCli(["login", "--email", "kathleen@example.com", "--api-url", apiUrl], { env: { HOME: home } });
    const code = await approveFromMail(platform.smtp, "kathleen@example.com");
    await cli.waitFor((output) => output.includes("standard input"));
    cli.write(`${code}\n`);
    const result = await cli.result;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Logged in as kathleen@example.com");
  });

  it("says how many tries remain after a wrong code, and accepts the right one next", async () => {
    const home = tempDir("weft-home-");
    const result = await login("alan@example.com", { HOME: home }, (code) => [otherCode(code), code]);
    expect(result.stderr).toContain("that code was not accepted: 4 tries left");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Logged in as alan@example.com");
  });

  it("gives up after five wrong codes, says to start again, and stores nothing", async () => {
    const home = tempDir("weft-home-");
    const result = await login("barbara@example.com", { HOME: home }, (code) => Array(5).fill(otherCode(code)));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("1 try left");
    expect(result.stderr).toMatch(/refused 5 times[\s\S]*fix: run `weft login` to start again/);
    expect(() => statSync(join(home, ".config", "weft", "credentials"))).toThrow();
  });

  it("without --email and without a terminal, is a usage error naming --email", async () => {
    const result = await runCli(["login", "--api-url", apiUrl]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--email");
  });

  it("reports an expired claim as expired, with the fix to start again", async () => {
    const email = "edsger@example.com";
    const discovery = await discover(apiUrl);
    let now = new Date();
    const codes = [approveFromMail(platform.smtp, email)];
    const failure = await loginWithEmail(
      {
        output: new Output({ json: true }),
        register: (address) => registerWithEmail(discovery, address),
        complete: (claimToken, otp) => completeClaim(discovery, { claimToken, otp }),
        readCode: async () => {
          const code = await codes[0];
          // Half an hour passes, for the platform and for the CLI, before the code is typed.
          platform.weft.clock.advance(31 * 60_000);
          now = new Date(now.getTime() + 31 * 60_000);
          return code;
        },
        now: () => now,
      },
      email,
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CliError);
    expect(failure).toMatchObject({ code: "claim_expired", fix: "run `weft login` to start again" });
    platform.weft.clock.set(new Date());
  });
});

describe("weft login --token, WEFT_TOKEN and logout", () => {
  it("stores a credential read from stdin, refusing an invalid one without writing the file", async () => {
    const identity = await createTestIdentity(platform.weft, "linus@example.com");
    const home = tempDir("weft-home-");
    const refused = await runCli(["login", "--token", "--api-url", apiUrl, "--json"], {
      env: { HOME: home },
      input: "weft_not_a_real_credential\n",
    });
    expect(refused.code).toBe(1);
    expect(parseJson(refused)).toMatchObject({
      error: { code: "invalid_token", fix: expect.stringContaining("weft login") },
    });
    expect(() => statSync(join(home, ".config", "weft", "credentials"))).toThrow();

    const accepted = await runCli(["login", "--token", "--api-url", apiUrl, "--json"], {
      env: { HOME: home },
      input: `${identity.credential}\n`,
    });
    expect(accepted.code).toBe(0);
    expect(parseJson(accepted)).toMatchObject({ email: "linus@example.com" });
  });

  it("lets WEFT_TOKEN override the credentials file", async () => {
    const stored = await createTestIdentity(platform.weft, "stored@example.com");
    const fromEnv = await createTestIdentity(platform.weft, "ci@example.com");
    const home = tempDir("weft-home-");
    await runCli(["login", "--token", "--api-url", apiUrl], { env: { HOME: home }, input: stored.credential });
    const whoami = await runCli(["whoami", "--json", "--api-url", apiUrl], {
      env: { HOME: home, WEFT_TOKEN: fromEnv.credential },
    });
    expect(parseJson(whoami)).toMatchObject({ email: "ci@example.com", credentialSource: "WEFT_TOKEN" });
  });

  it("logout revokes the credential at the authorization server and deletes the file", async () => {
    const identity = await createTestIdentity(platform.weft, "logout@example.com");
    const home = tempDir("weft-home-");
    await runCli(["login", "--token", "--api-url", apiUrl], { env: { HOME: home }, input: identity.credential });
    const logout = await runCli(["logout", "--json", "--api-url", apiUrl], { env: { HOME: home } });
    expect(logout.code).toBe(0);
    expect(parseJson(logout)).toMatchObject({ loggedOut: true });
    expect(() => statSync(join(home, ".config", "weft", "credentials"))).toThrow();

    const revoked = await runCli(["whoami", "--json", "--api-url", apiUrl], {
      env: { HOME: home, WEFT_TOKEN: identity.credential },
    });
    expect(revoked.code).toBe(1);
    expect(parseJson(revoked)).toMatchObject({
      error: { code: "invalid_token", fix: expect.stringContaining("weft login") },
    });

    const again = await runCli(["logout", "--api-url", apiUrl], { env: { HOME: home } });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("not logged in");
  });

  it("whoami without any credential says to run weft login", async () => {
    const result = await runCli(["whoami", "--api-url", apiUrl]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("fix: run `weft login`");
  });
});
