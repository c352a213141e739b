import type { WeftClient } from "@weft/client";
import { type Resource, resourcesPageLimit } from "@weft/contract";

export type FormResource = Extract<Resource, { kind: "form" }>;
export type WebhookResource = Extract<Resource, { kind: "webhook" }>;

/** Every form and webhook of the project's active deployment, with the public addresses the platform gives them. */
export async function listIngress(
  client: WeftClient,
  projectId: string,
): Promise<{ forms: FormResource[]; webhooks: WebhookResource[] }> {
  const resources: Resource[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await client.resources.list({
      projectId,
      pagination: { first: resourcesPageLimit, ...(after === undefined ? {} : { after }) },
    });
    resources.push(...page.results);
    if (!page.pagination.hasNextPage || page.pagination.endCursor === null) break;
    after = page.pagination.endCursor;
  }
  return {
    forms: resources.filter((resource): resource is FormResource => resource.kind === "form"),
    webhooks: resources.filter((resource): resource is WebhookResource => resource.kind === "webhook"),
  };
}

/** The addresses as `weft deploy` and `weft resources list` print them under `--json`. */
export function ingressSummary(ingress: { forms: FormResource[]; webhooks: WebhookResource[] }) {
  return {
    forms: ingress.forms.map((form) => ({
      name: form.name,
      workflow: form.workflow,
      visibility: form.visibility,
      disabled: form.disabled,
      pageUrl: form.urls.page,
      url: form.urls.programmatic,
    })),
    webhooks: ingress.webhooks.map((webhook) => ({
      name: webhook.name,
      workflow: webhook.workflow,
      secretHeader: webhook.secretHeader,
      url: webhook.urls.webhook,
    })),
  };
}
