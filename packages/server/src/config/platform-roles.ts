/** What a platform process serves (WEFT_ROLES): a process may take any of them, all by default. */
export const platformRoles = ["auth", "api", "ingress", "worker"] as const;
export type PlatformRole = (typeof platformRoles)[number];
