export * from "./auth.ts";
export * from "./deployments.ts";
export * from "./executions.ts";
export * from "./federation.ts";
export * from "./identity.ts";
export * from "./integrations.ts";
export * from "./projects.ts";
export * from "./schedules.ts";
