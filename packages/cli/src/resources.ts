import type { WeftClient } from "@weft/client";
import { type Resource, resourcesPageLimit } from "@weft/contract";
import { allPages } from "./all-pages.ts";

export type FormResource = Extract<Resource, { kind: "form" }>;
export type WebhookResource = Extract<Resource, { kind: "webhook" }>;

/** Every form and webhook of the project's active deployment, with the public addresses the platform gives them. */
export async function listIngress(
  client: WeftClient,
  projectId: string,
): Promise<{ forms: FormResource[]; webhooks: WebhookResource[] }> {
  const resources = await allPages((after) =>
    client.resources.list({
      projectId,
      pagination: { first: resourcesPageLimit, ...(after === undefined ? {} : { after }) },
    }),
  );
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
      ...(webhook.event === null ? {} : { event: webhook.event }),
      secretHeader: webhook.secretHeader,
      url: webhook.urls.webhook,
    })),
  };
}
