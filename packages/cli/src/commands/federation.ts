import {
  allScopes,
  defaultFederatedTtlSeconds,
  type FederationPolicy,
  federationPolicyPageLimit,
  maxFederatedTtlSeconds,
  type Scope,
} from "@weft/contract";
import type { Command } from "commander";
import { connect } from "../api.ts";
import { parseChoice } from "../choice-option.ts";
import type { CommandContext } from "../context.ts";
import { UsageError } from "../errors.ts";
import { examples } from "../help.ts";
import { printPage } from "../page-output.ts";
import { type PageOptions, toPagination, withPageOptions } from "../pagination-options.ts";
import { resolveProject, withProjectOption } from "../project-option.ts";
import { runCommand } from "../run-command.ts";
import { resolveWorkspace } from "../workspace-option.ts";

interface ListOptions extends PageOptions {
  workspace?: string;
  project?: string;
}

interface CreateOptions {
  project?: string;
  issuer?: string;
  audience?: string;
  subject?: string;
  claim: string[];
  scope: string[];
  ttl?: string;
}

/** Commander's collector of a repeatable option. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `--claim name=pattern`, as many as given, into the policy's claims. */
function parseClaims(claims: string[]): Record<string, string> | undefined {
  if (claims.length === 0) return undefined;
  const parsed: Record<string, string> = {};
  for (const claim of claims) {
    const separator = claim.indexOf("=");
    if (separator <= 0) {
      throw new UsageError(`--claim ${claim} is not name=pattern`, {
        fix: "write each claim as --claim name=pattern, e.g. --claim repository_owner=acme",
      });
    }
    parsed[claim.slice(0, separator)] = claim.slice(separator + 1);
  }
  return parsed;
}

/** `--scope`, repeated or comma-separated, each one of the credential scopes. */
function parseScopes(scopes: string[]): Scope[] {
  const named = scopes.flatMap((scope) => scope.split(",")).filter((scope) => scope !== "");
  if (named.length === 0) {
    throw new UsageError("a policy grants at least one scope: none was given", {
      fix: `add --scope for each scope the credential needs: ${allScopes.join(", ")}`,
    });
  }
  return [...new Set(named.map((scope) => parseChoice(scope, allScopes, `--scope ${scope} is not a scope`)))];
}

function parseTtl(ttl: string | undefined): number | undefined {
  if (ttl === undefined) return undefined;
  const seconds = Number(ttl);
  if (!(Number.isInteger(seconds) && seconds >= 60 && seconds <= maxFederatedTtlSeconds)) {
    throw new UsageError(`--ttl ${ttl} is not a whole number of seconds from 60 to ${maxFederatedTtlSeconds}`);
  }
  return seconds;
}

function requiredOption(value: string | undefined, flag: string, fix: string): string {
  if (value !== undefined) return value;
  throw new UsageError(`${flag} is required`, { fix });
}

/** Whose tokens a policy trusts: its subject pattern and claim patterns. */
function trusted(policy: FederationPolicy): string {
  const claims = Object.entries(policy.claims ?? {}).map(([name, pattern]) => `${name}=${pattern}`);
  return [...(policy.subject === null ? [] : [`sub=${policy.subject}`]), ...claims].join(" ");
}

function showPolicy(context: CommandContext, policy: FederationPolicy): void {
  context.output.fields([
    ["id", policy.id],
    ["project", policy.projectId],
    ["issuer", policy.issuer],
    ["audience", policy.audience],
    ["subject", policy.subject ?? undefined],
    ["claims", policy.claims === null ? undefined : JSON.stringify(policy.claims)],
    ["scopes", policy.scopes.join(", ")],
    ["ttl", `${policy.maxTtlSeconds}s`],
  ]);
}

/** The workspace of the list: `--workspace`, else the project's when `--project` is given, else the personal one. */
async function listWorkspace(context: CommandContext, options: ListOptions): Promise<string> {
  if (options.workspace !== undefined || options.project === undefined) {
    return resolveWorkspace(context, options.workspace);
  }
  return (await connect(context).projects.get({ projectId: options.project })).workspaceId;
}

export function registerFederation(program: Command): void {
  const federation = program
    .command("federation")
    .description("Trust an identity provider's OIDC tokens (CI) for a credential of one project")
    .addHelpText(
      "after",
      examples(
        "weft federation list",
        "weft federation create --issuer https://token.actions.githubusercontent.com --audience weft --subject 'repo:acme/shop:ref:refs/heads/main' --scope deployments:write --scope deployments:read",
        "weft federation delete fed_01j...",
      ),
    );

  withPageOptions(
    federation.command("list").description("List a workspace's federation policies (owners, admins)"),
    federationPolicyPageLimit,
  )
    .option("--workspace <id>", "the workspace (default: the project's with --project, else your personal one)")
    .option("--project <id>", "only this project's policies")
    .addHelpText("after", examples("weft federation list", "weft federation list --project prj_01j... --json"))
    .action(
      runCommand(async (context, options: ListOptions) => {
        const workspaceId = await listWorkspace(context, options);
        const page = await connect(context).access.listFederationPolicies({
          workspaceId,
          ...(options.project === undefined ? {} : { projectId: options.project }),
          pagination: toPagination(options, federationPolicyPageLimit),
        });
        printPage(context.output, page, {
          headers: ["ID", "PROJECT", "ISSUER", "AUDIENCE", "TRUSTS", "SCOPES", "TTL"],
          row: (policy) => [
            policy.id,
            policy.projectId,
            policy.issuer,
            policy.audience,
            trusted(policy),
            policy.scopes.join(","),
            `${policy.maxTtlSeconds}s`,
          ],
          empty: "No federation policies.",
        });
      }),
    );

  withProjectOption(
    federation
      .command("create")
      .description("Trust an issuer's tokens that match a subject or claims for a credential of the project")
      .option("--issuer <url>", "the OIDC issuer (https; http only on a loopback host)")
      .option("--audience <aud>", "the audience the tokens must name")
      .option("--subject <pattern>", "the subject tokens must match (* stands for any run of characters)")
      .option("--claim <name=pattern>", "a claim tokens must match (repeatable)", collect, [])
      .option("--scope <scope>", `a scope the credential gets (repeatable): ${allScopes.join(", ")}`, collect, [])
      .option(
        "--ttl <seconds>",
        `the credential's longest lifetime (60-${maxFederatedTtlSeconds}, default ${defaultFederatedTtlSeconds})`,
      ),
  )
    .addHelpText(
      "after",
      examples(
        "weft federation create --issuer https://token.actions.githubusercontent.com --audience weft --subject 'repo:acme/shop:ref:refs/heads/main' --scope deployments:read --scope deployments:write",
        "weft federation create --issuer https://gitlab.example.com --audience weft --claim project_path=acme/shop --scope deployments:write --json",
      ),
    )
    .action(
      runCommand(async (context, options: CreateOptions) => {
        const issuer = requiredOption(
          options.issuer,
          "--issuer",
          "name the identity provider, e.g. --issuer https://token.actions.githubusercontent.com",
        );
        const audience = requiredOption(
          options.audience,
          "--audience",
          "name the audience your CI asks its tokens for, e.g. --audience weft",
        );
        const claims = parseClaims(options.claim);
        if (options.subject === undefined && claims === undefined) {
          throw new UsageError("a policy without --subject or --claim would trust every token of the issuer", {
            fix: "pin whose tokens are trusted with --subject 'repo:acme/shop:*' or --claim name=pattern",
          });
        }
        const scopes = parseScopes(options.scope);
        const maxTtlSeconds = parseTtl(options.ttl);
        const projectId = resolveProject(context, options.project);
        const client = connect(context);
        const { workspaceId } = await client.projects.get({ projectId });
        const policy = await client.access.createFederationPolicy({
          workspaceId,
          projectId,
          issuer,
          audience,
          ...(options.subject === undefined ? {} : { subject: options.subject }),
          ...(claims === undefined ? {} : { claims }),
          scopes,
          ...(maxTtlSeconds === undefined ? {} : { maxTtlSeconds }),
        });
        context.output.result(policy, () => {
          context.output.line(`${context.output.style("green", "Created")} federation policy ${policy.id}.`);
          showPolicy(context, policy);
          context.output.line(
            context.output.style("dim", `CI logs in with: weft login --oidc-token <jwt> --project ${policy.projectId}`),
          );
        });
      }),
    );

  federation
    .command("delete")
    .description("Delete a federation policy and revoke the credentials it gave")
    .argument("<policyId>", "the policy's id (fed_…, see `weft federation list`)")
    .addHelpText("after", examples("weft federation delete fed_01j...", "weft federation delete fed_01j... --json"))
    .action(
      runCommand(async (context, policyId: string) => {
        const policy = await connect(context).access.deleteFederationPolicy({ policyId });
        context.output.result(policy, () => {
          context.output.line(
            `${context.output.style("green", "Deleted")} federation policy ${policy.id}; the credentials it gave are revoked.`,
          );
        });
      }),
    );
}
