import { z } from "zod";

/**
 * Failure notices a project asks for in `weft.config.ts`: when an execution ends `failed`, a mail
 * to each address or a signed POST to a webhook URL, at most one per workflow per window.
 */

export const alertLimits = {
  alerts: 10,
  recipients: 20,
  urlLength: 2000,
} as const;

const mailAlertSchema = z.strictObject({
  on: z.literal("failed"),
  mail: z.array(z.string()).min(1),
});

const webhookAlertSchema = z.strictObject({
  on: z.literal("failed"),
  webhook: z.string(),
});

export const alertManifestSchema = z.union([mailAlertSchema, webhookAlertSchema], {
  error: 'an alert is { on: "failed", mail: ["someone@example.com", …] } or { on: "failed", webhook: "https://…" }',
});
export type AlertManifest = z.infer<typeof alertManifestSchema>;

/** How an alert is named in a refusal: its position and where it sends. */
export function alertLabel(alert: { mail?: unknown; webhook?: unknown }, index: number): string {
  return `alert ${index + 1} (${"webhook" in alert ? "webhook" : "mail"})`;
}

/** Each problem of one alert, every message naming the alert; the alert's own fields are in `path`. */
export function alertIssues(alert: AlertManifest, index: number): { path: (string | number)[]; message: string }[] {
  const label = alertLabel(alert, index);
  if ("mail" in alert) {
    const issues: { path: (string | number)[]; message: string }[] = [];
    if (alert.mail.length > alertLimits.recipients) {
      issues.push({
        path: ["mail"],
        message: `${label}: ${alert.mail.length} recipients; at most ${alertLimits.recipients} are accepted`,
      });
    }
    alert.mail.forEach((address, at) => {
      if (!z.email().safeParse(address).success) {
        issues.push({ path: ["mail", at], message: `${label}: "${address}" is not an email address` });
      }
    });
    const repeated = alert.mail.filter((address, at) => alert.mail.indexOf(address) !== at);
    for (const address of new Set(repeated)) {
      issues.push({ path: ["mail"], message: `${label}: "${address}" is listed twice` });
    }
    return issues;
  }
  const problem = webhookUrlProblem(alert.webhook);
  return problem === undefined ? [] : [{ path: ["webhook"], message: `${label}: ${problem}` }];
}

function webhookUrlProblem(url: string): string | undefined {
  if (url.length > alertLimits.urlLength) return `the URL is longer than ${alertLimits.urlLength} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${url}" is not a URL`;
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    return `"${url}" is not an http(s) URL`;
  }
  if (parsed.username !== "" || parsed.password !== "") {
    return `"${url}" carries credentials; the notice is signed instead (X-Weft-Signature)`;
  }
  return undefined;
}

/**
 * A webhook alert's signing secret, shown once: in the answer of the deployment that first named
 * the URL for the project.
 */
export const alertWebhookSecretSchema = z.object({
  url: z.string(),
  secret: z.string(),
});
export type AlertWebhookSecret = z.infer<typeof alertWebhookSecretSchema>;

/** The JSON body of a failure notice, posted to a webhook alert (and told in words by mail). */
export interface FailureNotice {
  project: { id: string; name: string };
  workflow: string;
  /** How many executions failed since the previous notice of this workflow: this one stands for them all. */
  failures: number;
  firstFailureAt: string;
  lastFailureAt: string;
  lastExecution: {
    id: string;
    /** `description` is the message and where in the project's source it was thrown (`describeWorkflowError`). */
    error: { name: string; message: string; location: string | null; description: string };
  };
}
