export type { WebhookInput } from "@weft/contract";
export { buildManifest, ManifestError, toJsonSchema } from "./build-manifest.ts";
export * from "./definitions.ts";
export { type Duration, durationToMs } from "./duration.ts";
