import type { AlertManifest, FormManifest, ScheduleManifest, WebhookManifest, WorkflowManifest } from "@weft/contract";

/** A form as stored: the basic-auth password is kept only as a SHA-256 digest. */
export type StoredForm = Omit<FormManifest, "basicAuth"> & {
  basicAuth?: { username: string; passwordHash: string } | undefined;
};

/** A webhook as stored: the shared secret is kept only as a SHA-256 digest. */
export type StoredWebhook = Omit<WebhookManifest, "secret"> & {
  secret?: { header: string; valueHash: string } | undefined;
};

/**
 * The manifest of a deployment as the database keeps it and the API returns it: the uploaded
 * manifest with every secret replaced by its digest. Compare presented secrets with
 * `secretMatchesHash` from `shared/secrets.ts`; `toStoredManifest` in `deployments/` makes it.
 */
export interface StoredManifest {
  version: 1;
  workflows: WorkflowManifest[];
  forms: StoredForm[];
  webhooks: StoredWebhook[];
  /** Absent from deployments made before schedules existed. */
  schedules?: ScheduleManifest[] | undefined;
  /** Absent when the deployment has no alerts (and from deployments made before alerts existed). */
  alerts?: AlertManifest[] | undefined;
}
