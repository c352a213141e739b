import type { Manifest } from "@weft/contract";
import type { StoredManifest } from "../db/schema/stored-manifest.ts";
import { hashSecret } from "../shared/secrets.ts";

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
