import type {
  AlertManifest,
  FormManifest,
  Manifest,
  ScheduleManifest,
  WebhookManifest,
  WorkflowManifest,
} from "@weft/contract";
import { hashSecret } from "../shared/secrets.ts";

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
 * `secretMatchesHash` from `shared/secrets.ts`.
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

export function toStoredManifest(manifest: Manifest): StoredManifest {
  return {
    version: manifest.version,
    workflows: manifest.workflows,
    forms: manifest.forms.map(({ basicAuth, ...form }) => ({
      ...form,
      ...(basicAuth === undefined
        ? {}
        : { basicAuth: { username: basicAuth.username, passwordHash: hashSecret(basicAuth.password) } }),
    })),
    webhooks: manifest.webhooks.map(({ secret, ...webhook }) => ({
      ...webhook,
      ...(secret === undefined ? {} : { secret: { header: secret.header, valueHash: hashSecret(secret.value) } }),
    })),
    schedules: manifest.schedules,
    ...(manifest.alerts.length === 0 ? {} : { alerts: manifest.alerts }),
  };
}
