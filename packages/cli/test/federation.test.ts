import { acceptInvitationLink, createTestIdentity, outboxInvitationLink } from "@weft/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { parseJson, runCli } from "./support/run-cli.ts";
import { signedInPlatform } from "./support/signed-in-platform.ts";

const signedIn = signedInPlatform("federation-owner@example.com", { env: { WEFT_ROLES: "auth,api" } });
let projectId: string;
let otherProjectId: string;

const issuer = "https://token.actions.githubusercontent.com";

beforeAll(async () => {
  projectId = parseJson<{ id: string }>(
    await runCli(["projects", "create", "shop", "--json"], { env: signedIn.env }),
  ).id;
  otherProjectId = parseJson<{ id: string }>(
    await runCli(["projects", "create", "blog", "--json"], { env: signedIn.env }),
  ).id;
});

const cli = (args: string[]) => runCli(args, { env: signedIn.env });

describe("weft federation", () => {
  it("creates, lists and deletes a project's federation policies", async () => {
    const created = await cli([
      "federation",
      "create",
      "--project",
      projectId,
      "--issuer",
      issuer,
      "--audience",
      "weft",
      "--subject",
      "repo:acme/shop:ref:refs/heads/main",
      "--scope",
      "deployments:read,deployments:write",
      "--ttl",
      "600",
      "--json",
    ]);
    expect(created.code, created.stderr).toBe(0);
    const policy = parseJson<{ id: string }>(created);
    expect(policy).toMatchObject({
      workspaceId: signedIn.identity.personalWorkspaceId,
      projectId,
      issuer,
      audience: "weft",
      subject: "repo:acme/shop:ref:refs/heads/main",
      claims: null,
      scopes: ["deployments:read", "deployments:write"],
      maxTtlSeconds: 600,
    });
    const byClaims = await cli([
      "federation",
      "create",
      "--project",
      otherProjectId,
      "--issuer",
      issuer,
      "--audience",
      "weft",
      "--claim",
      "repository_owner=acme",
      "--claim",
      "ref=refs/heads/*",
      "--scope",
      "projects:read",
    ]);
    expect(byClaims.code, byClaims.stderr).toBe(0);
    expect(byClaims.stdout).toMatch(/Created federation policy fed_[0-9a-z]{26}\./);
    expect(byClaims.stdout).toContain(`weft login --oidc-token <jwt> --project ${otherProjectId}`);

    const all = parseJson<{ results: { projectId: string }[] }>(await cli(["federation", "list", "--json"]));
    expect(all.results.map((listed) => listed.projectId).sort()).toEqual([projectId, otherProjectId].sort());
    const onlyShop = parseJson<{ results: { id: string }[] }>(
      await cli(["federation", "list", "--project", projectId, "--json"]),
    );
    expect(onlyShop.results.map((listed) => listed.id)).toEqual([policy.id]);
    const table = await cli(["federation", "list"]);
    expect(table.stdout).toMatch(/^ID\s+PROJECT\s+ISSUER\s+AUDIENCE\s+TRUSTS\s+SCOPES\s+TTL\n/);
    expect(table.stdout).toContain("sub=repo:acme/shop:ref:refs/heads/main");
    expect(table.stdout).toContain("repository_owner=acme");
    expect(table.stdout).toContain("ref=refs/heads/*");

    const deleted = await cli(["federation", "delete", policy.id, "--json"]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(parseJson(deleted)).toMatchObject({ id: policy.id, projectId });
    const remaining = parseJson<{ results: unknown[] }>(
      await cli(["federation", "list", "--project", projectId, "--json"]),
    );
    expect(remaining.results).toEqual([]);
    const again = await cli(["federation", "delete", policy.id, "--json"]);
    expect(again.code).toBe(1);
    expect(parseJson(again)).toMatchObject({ error: { code: "not_found" } });
  });

  it("refuses, before asking the platform, a policy that would trust every token or grants nothing", async () => {
    const base = ["federation", "create", "--project", projectId, "--issuer", issuer, "--audience", "weft"];
    const unpinned = await cli([...base, "--scope", "projects:read"]);
    expect(unpinned.code).toBe(2);
    expect(unpinned.stderr).toContain("would trust every token of the issuer");
    expect(unpinned.stderr).toContain("--subject");

    const noScope = await cli([...base, "--subject", "repo:acme/shop:*"]);
    expect(noScope.code).toBe(2);
    expect(noScope.stderr).toContain("at least one scope");

    const badScope = await cli([...base, "--subject", "repo:acme/shop:*", "--scope", "everything", "--json"]);
    expect(badScope.code).toBe(2);
    expect(parseJson(badScope)).toMatchObject({
      error: { code: "usage", message: "--scope everything is not a scope" },
    });

    const badClaim = await cli([...base, "--claim", "acme", "--scope", "projects:read"]);
    expect(badClaim.code).toBe(2);
    expect(badClaim.stderr).toContain("--claim acme is not name=pattern");

    const noIssuer = await cli(["federation", "create", "--project", projectId, "--audience", "weft"]);
    expect(noIssuer.code).toBe(2);
    expect(noIssuer.stderr).toContain("--issuer is required");

    const wildcard = await cli([...base, "--subject", "*", "--scope", "projects:read"]);
    expect(wildcard.code).toBe(1);
    expect(wildcard.stderr).toContain("A pattern of * alone matches every token of the issuer");
    expect(parseJson<{ results: unknown[] }>(await cli(["federation", "list", "--json"])).results).toHaveLength(1);
  });

  it("refuses a member who is not an owner or admin, and someone outside the workspace", async () => {
    const teamId = parseJson<{ id: string }>(await cli(["workspaces", "create", "Federation team", "--json"])).id;
    const member = await createTestIdentity(signedIn.weft, "federation-member@example.com");
    await cli(["members", "invite", member.email, "--role", "member", "--workspace", teamId]);
    await acceptInvitationLink(outboxInvitationLink(signedIn.weft, member.email));
    const asMember = { env: { WEFT_TOKEN: member.credential, WEFT_API_URL: signedIn.weft.url } };

    const refused = await runCli(["federation", "list", "--workspace", teamId, "--json"], asMember);
    expect(refused.code).toBe(1);
    expect(parseJson(refused)).toMatchObject({
      error: { code: "forbidden", fix: expect.stringContaining("ask an owner or admin") },
    });
    const outside = await runCli(
      ["federation", "list", "--workspace", signedIn.identity.personalWorkspaceId, "--json"],
      asMember,
    );
    expect(outside.code).toBe(1);
    expect(parseJson(outside)).toMatchObject({ error: { code: "not_found" } });
  });
});
