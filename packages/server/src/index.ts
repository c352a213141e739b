export type { Config, PlatformRole } from "./config/config.ts";
export { loadConfig } from "./config/load-config.ts";
export { ConfigError, parseConfig } from "./config/parse-config.ts";
export { type PlatformOptions, type RunningPlatform, startPlatform } from "./platform.ts";
