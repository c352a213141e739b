import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  callRpc,
  createTestIdentity,
  startTestIdentityProvider,
  startTestPlatform,
  type TestIdentityProvider,
  type TestPlatform,
} from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolatedHome, parseJson, runCli } from "./support/run-cli.ts";

let weft: TestPlatform;
let idp: TestIdentityProvider;
let projectId: string;
let otherProjectId: string;

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  // The issuer serves on loopback: the operator's exemption lets the platform fetch its keys.
  weft = await startTestPlatform({ env: { WEFT_SANDBOX_EGRESS_ALLOW: new URL(idp.issuer).host } });
  const owner = await createTestIdentity(weft, "ci-owner@example.com");
  const token = { token: owner.credential };
  projectId = ((await callRpc(weft.url, "projects.create", { name: "shop" }, token)).json as { id: string }).id;
  otherProjectId = ((await callRpc(weft.url, "projects.create", { name: "other" }, token)).json as { id: string }).id;
  const policy = await callRpc(
    weft.url,
    "access.createFederationPolicy",
    {
      workspaceId: owner.personalWorkspaceId,
      projectId,
      issuer: idp.issuer,
      audience: "weft",
      subject: "repo:acme/shop:*",
      scopes: ["projects:read", "deployments:read", "deployments:write"],
    },
    token,
  );
  if (policy.status !== 200) throw new Error(policy.text);
});

afterAll(async () => {
  await weft?.stop();
  await idp?.close();
});

/** A GitHub Actions-like OIDC token for the repository's main branch. */
function ciToken(): Promise<string> {
  const now = Math.floor(weft.clock.now().getTime() / 1000);
  return idp.sign(
    {
      iss: idp.issuer,
      aud: "weft",
      sub: "repo:acme/shop:ref:refs/heads/main",
      jti: randomUUID(),
      iat: now,
      exp: now + 300,
    },
    { typ: "JWT" },
  );
}

describe("weft login --oidc-token", () => {
  it("exchanges a token from a file or standard input and stores a credential that sees only the project", async () => {
    const home = isolatedHome();
    const file = join(mkdtempSync(join(tmpdir(), "weft-oidc-")), "token.jwt");
    writeFileSync(file, `${await ciToken()}\n`);
    const env = { HOME: home, WEFT_API_URL: weft.url };
    const fromFile = await runCli(["login", "--oidc-token", `@${file}`, "--project", projectId, "--json"], { env });
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(parseJson(fromFile)).toMatchObject({ scopes: ["projects:read", "deployments:read", "deployments:write"] });
    const listed = parseJson<{ results: { id: string }[] }>(await runCli(["projects", "list", "--json"], { env }));
    expect(listed.results.map((project) => project.id)).toEqual([projectId]);
    const whoami = await runCli(["whoami"], { env });
    expect(whoami.stdout).toMatch(new RegExp(`project\\s+${projectId} only \\(federated\\)`));

    const fromStdin = await runCli(["login", "--oidc-token", "-", "--project", projectId, "--json"], {
      env,
      input: `${await ciToken()}\n`,
    });
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
  });

  it("refuses a token for a project no policy trusts it for, storing nothing", async () => {
    const env = { HOME: isolatedHome(), WEFT_API_URL: weft.url };
    const refused = await runCli(["login", "--oidc-token", await ciToken(), "--project", otherProjectId], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("invalid_request");
    expect((await runCli(["whoami"], { env })).code).not.toBe(0);
  });

  it("needs --project with --oidc-token", async () => {
    const result = await runCli(["login", "--oidc-token", "x"], { env: { WEFT_API_URL: weft.url } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--project");
  });
});

describe("weft deploy with WEFT_OIDC_TOKEN", () => {
  it("exchanges the token by itself and deploys to the project", async () => {
    const directory = join(mkdtempSync(join(tmpdir(), "weft-oidc-deploy-")), "shop");
    expect((await runCli(["init", directory])).code).toBe(0);
    const env = { WEFT_API_URL: weft.url, WEFT_OIDC_TOKEN: await ciToken() };
    const deployed = await runCli(["deploy", "--project", projectId, "--json"], { cwd: directory, env });
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(parseJson(deployed)).toMatchObject({ projectId, deployment: { number: 1 } });
    const unnamed = await runCli(["deploy", "--create"], { cwd: directory, env });
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toContain("WEFT_OIDC_TOKEN");
  });
});
