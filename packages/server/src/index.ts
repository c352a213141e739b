export type { Config, PlatformRole } from "./config/config.ts";
export { ConfigError, parseConfig } from "./config/parse-config.ts";
export { type PlatformOptions, type RunningPlatform, startPlatform } from "./platform.ts";
