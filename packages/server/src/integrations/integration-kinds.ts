import { type IntegrationKind, integrationConfigSchemas, integrationSecretsSchemas } from "@weft/contract";
import type * as z from "zod";
import type { ServiceIssue } from "../shared/service-result.ts";

/** Zod's issues under `prefix`; a field the kind does not know gets an issue of its own path. */
function issuesOf(error: z.ZodError, prefix: string): ServiceIssue[] {
  return error.issues.flatMap((issue) => {
    const at = [prefix, ...issue.path.map(String)];
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({ path: [...at, key].join("."), message: "Not a field of this kind." }));
    }
    return [{ path: at.join("."), message: issue.message }];
  });
}

/** The issues of a kind's config (under `config`), none when it is valid. */
export function configIssues(kind: IntegrationKind, config: Record<string, unknown>): ServiceIssue[] {
  const parsed = integrationConfigSchemas[kind].safeParse(config);
  return parsed.success ? [] : issuesOf(parsed.error, "config");
}

/**
 * The issues of the secrets an integration would hold (under `secrets`): names its kind does not
 * know, and required ones missing. Values are checked where they arrive; here only names count.
 */
export function secretNameIssues(kind: IntegrationKind, names: string[]): ServiceIssue[] {
  // A placeholder stands for each value, so no issue can quote a secret.
  const parsed = integrationSecretsSchemas[kind].safeParse(Object.fromEntries(names.map((name) => [name, "x"])));
  return parsed.success ? [] : issuesOf(parsed.error, "secrets");
}
