export type { WebhookInput } from "@weft/contract";
export { type Duration, durationToMs } from "@weft/contract";
export { buildManifest, ManifestError, toJsonSchema } from "./build-manifest.ts";
export * from "./definitions.ts";
