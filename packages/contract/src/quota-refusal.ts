import * as z from "zod";

export const quotaNames = [
  "executionsPerMonth",
  "stepSecondsPerMonth",
  "projects",
  "storageBytes",
  "workspaces",
] as const;
export const quotaNameSchema = z.enum(quotaNames);
export type QuotaName = z.infer<typeof quotaNameSchema>;

/** The quota a refusal names (in `data.quota` of the RPC error). */
export const quotaRefusalSchema = z.object({
  name: quotaNameSchema,
  limit: z.number(),
  used: z.number(),
  /** When the monthly counter starts again; null for the counts of projects and workspaces, which no month resets. */
  resetsAt: z.iso.datetime().nullable(),
});
export type QuotaRefusal = z.infer<typeof quotaRefusalSchema>;
