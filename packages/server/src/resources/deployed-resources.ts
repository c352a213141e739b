import type { Resource, ResourceKind } from "@weft/contract";
import type { Database } from "../db/database.ts";
import { getActiveDeployment } from "../deployments/read-deployments.ts";

/**
 * Where the public ingress serves a project's forms and webhooks. Hosted forms and webhooks live
 * under `/triggers` at the root of the platform's origin; the programmatic form endpoint lives under
 * `{base_url}` and is given with `projectId`, so the address works even when other projects define
 * a form of the same name.
 */
export function ingressUrls(baseUrl: string, projectId: string) {
  const origin = new URL(baseUrl).origin;
  const project = encodeURIComponent(projectId);
  return {
    formPage: (name: string) => `${origin}/triggers/forms/${project}/${encodeURIComponent(name)}`,
    programmaticForm: (name: string) => `${baseUrl}/forms/${encodeURIComponent(name)}?projectId=${project}`,
    webhook: (name: string) => `${origin}/triggers/webhooks/${project}/${encodeURIComponent(name)}`,
  };
}

const kindOrder: Record<ResourceKind, number> = { workflow: 0, form: 1, webhook: 2, schedule: 3 };

/** Resources are listed workflows first, then forms, webhooks and schedules, each by name. */
export function compareResources(a: { kind: ResourceKind; name: string }, b: { kind: ResourceKind; name: string }) {
  return kindOrder[a.kind] - kindOrder[b.kind] || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/**
 * Every workflow, form, webhook and schedule of the project's active deployment (none when nothing is
 * deployed), in listing order. Secrets never appear: only whether a form has basic auth and which
 * header a webhook's secret travels in.
 */
export async function listDeployedResources(
  db: Database,
  request: { projectId: string; baseUrl: string; kind?: ResourceKind | undefined },
): Promise<Resource[]> {
  const deployment = await getActiveDeployment(db, request.projectId);
  if (deployment === undefined) return [];
  const urls = ingressUrls(request.baseUrl, request.projectId);
  const { manifest } = deployment;
  const resources: Resource[] = [
    ...manifest.workflows.map(
      (workflow): Resource => ({
        kind: "workflow",
        name: workflow.name,
        deploymentId: deployment.id,
        inputSchema: workflow.inputSchema ?? null,
      }),
    ),
    ...manifest.forms.map((form): Resource => {
      const internal = form.visibility === "internal";
      return {
        kind: "form",
        name: form.name,
        deploymentId: deployment.id,
        workflow: form.workflow,
        title: form.title ?? null,
        description: form.description ?? null,
        visibility: form.visibility,
        disabled: form.disabled,
        basicAuth: form.basicAuth !== undefined,
        schema: form.schema,
        urls: {
          page: internal ? null : urls.formPage(form.name),
          programmatic: internal ? null : urls.programmaticForm(form.name),
        },
      };
    }),
    ...manifest.webhooks.map(
      (webhook): Resource => ({
        kind: "webhook",
        name: webhook.name,
        deploymentId: deployment.id,
        workflow: webhook.workflow ?? null,
        event: webhook.event ?? null,
        secretHeader: webhook.secret?.header ?? null,
        urls: { webhook: urls.webhook(webhook.name) },
      }),
    ),
    ...(manifest.schedules ?? []).map(
      (schedule): Resource => ({
        kind: "schedule",
        name: schedule.name,
        deploymentId: deployment.id,
        workflow: schedule.workflow,
        cron: schedule.cron,
        timezone: schedule.timezone,
        enabled: schedule.enabled,
        input: schedule.input ?? null,
      }),
    ),
  ];
  return resources
    .filter((resource) => request.kind === undefined || resource.kind === request.kind)
    .sort(compareResources);
}
