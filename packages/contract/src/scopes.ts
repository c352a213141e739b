import * as z from "zod";

/** Every scope a credential can carry. */
export const allScopes = ["projects:read", "projects:write", "deployments:read", "deployments:write"] as const;
export type Scope = (typeof allScopes)[number];

export const scopeSchema = z.enum(allScopes);

export function isScope(value: string): value is Scope {
  return (allScopes as readonly string[]).includes(value);
}
