import { createHash } from "node:crypto";
import { type AlertWebhookSecret, type JsonSchema, type Manifest, manifestSchema } from "@weft/contract";
import { sql } from "drizzle-orm";
import { alertTargetIssues } from "../alerts/alert-targets.ts";
import { issueWebhookSecrets, webhookAlertUrls } from "../alerts/webhook-secrets.ts";
import type { PlanCatalogue } from "../billing/plans.ts";
import { scheduleLimitFailure } from "../billing/schedule-quota.ts";
import type { Database } from "../db/database.ts";
import { transactionWithResult } from "../db/result-transaction.ts";
import { deployments } from "../db/schema/index.ts";
import { checkDeclaredIntegrations } from "../integrations/declared-integrations.ts";
import type { SecretKeyring } from "../integrations/secret-sealing.ts";
import { jsonSchemaProblem, validateJsonSchema } from "../schemas/validate-json-schema.ts";
import type { Clock } from "../shared/clock.ts";
import type { GuardedFetch } from "../shared/guarded-fetch.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { formatJsonPath } from "../shared/storable-json.ts";
import type { AnnouncesActiveDeploymentChanges } from "./active-deployment-changes.ts";
import { type DeploymentSummary, toDeploymentSummary } from "./deployment-summary.ts";
import { type DeploymentActor, makeActive } from "./make-active.ts";
import { toStoredManifest } from "./stored-manifest.ts";

export const deploymentLimits = {
  /** Bytes of the manifest's JSON text. */
  manifestBytes: 1024 * 1024,
  /** Bytes of the ESM bundle (UTF-8). */
  bundleBytes: 10 * 1024 * 1024,
} as const;

export interface CreateDeploymentRequest {
  projectId: string;
  manifest: unknown;
  bundle: string;
  actor?: DeploymentActor;
}

function issuePath(path: PropertyKey[]): string {
  return path.map(String).join(".");
}

/**
 * Validates an uploaded manifest strictly: every problem becomes one issue. With `outbound`, a
 * webhook alert aimed at an address the platform may not reach (a literal private IP) is refused too.
 */
export function parseManifest(
  manifest: unknown,
  outbound?: Pick<GuardedFetch, "addressRefusal">,
): ServiceResult<Manifest> {
  const manifestBytes = Buffer.byteLength(JSON.stringify(manifest) ?? "", "utf8");
  if (manifestBytes > deploymentLimits.manifestBytes) {
    return fail.invalid(
      `the manifest is ${manifestBytes} bytes; at most ${deploymentLimits.manifestBytes} are accepted`,
    );
  }
  const parsed = manifestSchema.safeParse(manifest);
  if (!parsed.success) {
    return fail.invalid(
      "the manifest is invalid",
      parsed.error.issues.map((issue) => ({ path: issuePath(issue.path), message: issue.message })),
    );
  }
  const issues: { path: string; message: string }[] = [];
  const checkSchema = (at: (string | number)[], schema: JsonSchema | undefined) => {
    const problem = schema === undefined ? undefined : jsonSchemaProblem(schema);
    if (problem === undefined) return;
    const path = [...at, ...problem.path];
    issues.push({ path: path.join("."), message: `${formatJsonPath(path)} ${problem.message}` });
  };
  parsed.data.workflows.forEach((workflow, index) => {
    checkSchema(["workflows", index, "inputSchema"], workflow.inputSchema);
  });
  parsed.data.forms.forEach((form, index) => {
    checkSchema(["forms", index, "schema"], form.schema);
  });
  if (issues.length === 0) issues.push(...scheduleInputIssues(parsed.data));
  if (outbound !== undefined) issues.push(...alertTargetIssues(parsed.data, outbound));
  if (issues.length > 0) return fail.invalid("the manifest is invalid", issues);
  return ok(parsed.data);
}

/** Stands for the tick in `scheduledFor` when a schedule's input is checked: any instant has the shape. */
const sampleTick = "2026-01-01T00:00:00.000Z";

/** Each schedule's input, `{ scheduledFor, ...input }`, must be one its workflow's input schema accepts. */
function scheduleInputIssues(manifest: Manifest): { path: string; message: string }[] {
  return manifest.schedules.flatMap((schedule, index) => {
    const schema = manifest.workflows.find((workflow) => workflow.name === schedule.workflow)?.inputSchema;
    if (schema === undefined) return [];
    const checked = validateJsonSchema(schema, { scheduledFor: sampleTick, ...schedule.input });
    if (checked.ok) return [];
    return checked.issues.map((issue) => ({
      path: ["schedules", index, "input", ...(issue.path === "" ? [] : [issue.path])].join("."),
      message: `schedule "${schedule.name}": its input ({ scheduledFor, ...input }) does not match the input schema of workflow "${schedule.workflow}": ${issue.path === "" ? "" : `${issue.path} `}${issue.message}`,
    }));
  });
}

function bundleFailure(bundle: string): ServiceResult<never> | undefined {
  const bytes = Buffer.byteLength(bundle, "utf8");
  if (bytes === 0) return fail.invalid("the bundle is empty: expected one ESM file");
  if (bytes > deploymentLimits.bundleBytes) {
    return fail.invalid(`the bundle is ${bytes} bytes; at most ${deploymentLimits.bundleBytes} are accepted`);
  }
  return undefined;
}

/** A created deployment, with the signing secrets of the webhook alerts it is the first to name (shown once). */
export interface CreatedDeployment extends DeploymentSummary {
  alertSecrets: AlertWebhookSecret[];
}

/**
 * Stores a new immutable deployment with the next number of its project and makes it the active
 * one. Secrets in the manifest are stored as digests only. Webhook alerts need `keyring`, which
 * seals their signing secrets, and are checked against `outbound`'s address policy when given.
 */
export async function createDeployment(
  db: Database,
  deps: {
    clock: Clock;
    ids: IdGenerator;
    keyring?: SecretKeyring | undefined;
    outbound?: Pick<GuardedFetch, "addressRefusal"> | undefined;
    /** The plans (WEFT_PLANS), whose `schedules` the deployment must fit; the unlimited plan when absent. */
    catalogue?: PlanCatalogue | undefined;
  } & AnnouncesActiveDeploymentChanges,
  request: CreateDeploymentRequest,
): Promise<ServiceResult<CreatedDeployment>> {
  const parsed = parseManifest(request.manifest, deps.outbound);
  if (!parsed.ok) return parsed;
  const badBundle = bundleFailure(request.bundle);
  if (badBundle !== undefined) return badBundle;
  const stored = toStoredManifest(parsed.value);
  const bundleSha256 = createHash("sha256").update(request.bundle, "utf8").digest("hex");
  const webhookUrls = webhookAlertUrls(parsed.value);
  const keyring = deps.keyring;
  if (webhookUrls.length > 0 && keyring === undefined) throw new Error("webhook alerts need the secret keyring");
  const created = await transactionWithResult(db, async (tx): Promise<ServiceResult<CreatedDeployment>> => {
    // Serialises deployments of one project so numbers are consecutive without retry loops.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`deploy:${request.projectId}`}, 0))`);
    const declared = await checkDeclaredIntegrations(tx, request.projectId, parsed.value);
    if (!declared.ok) return declared;
    const overLimit = await scheduleLimitFailure(tx, deps.catalogue, {
      projectId: request.projectId,
      scheduleCount: parsed.value.schedules.length,
    });
    if (overLimit !== undefined) return overLimit;
    const [last] = await tx
      .select({ number: sql<number>`coalesce(max(${deployments.number}), 0)::int` })
      .from(deployments)
      .where(sql`${deployments.projectId} = ${request.projectId}`);
    const now = deps.clock.now();
    const [row] = await tx
      .insert(deployments)
      .values({
        id: deps.ids("deployment"),
        projectId: request.projectId,
        number: (last?.number ?? 0) + 1,
        manifest: stored,
        bundle: request.bundle,
        bundleSha256,
        bundleBytes: Buffer.byteLength(request.bundle, "utf8"),
        createdByAccountId: request.actor?.accountId ?? null,
        createdAt: now,
      })
      .returning();
    if (row === undefined) throw new Error("the deployment insert returned no row");
    const activated = await makeActive(
      tx,
      deps,
      { projectId: request.projectId, actor: request.actor, action: "deployment.created", data: { bundleSha256 }, now },
      row,
    );
    if (!activated.ok) return activated;
    const alertSecrets =
      keyring === undefined
        ? []
        : await issueWebhookSecrets(tx, keyring, { projectId: request.projectId, urls: webhookUrls, now });
    return ok({ ...toDeploymentSummary(row, { active: true }), alertSecrets });
  });
  if (created.ok) deps.activeDeploymentChanges?.publish(request.projectId);
  return created;
}
