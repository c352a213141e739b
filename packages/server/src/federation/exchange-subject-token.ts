import type { AuthResult } from "../auth/auth-error.ts";
import { refuse } from "../auth/auth-error.ts";
import type { Database } from "../db/database.ts";
import { findProject } from "../projects/project-record.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { hasIdShape } from "../shared/ids.ts";
import { type FederatedCredential, issueFederatedCredential } from "./issue-federated-credential.ts";
import { type SubjectTokenDependencies, verifySubjectToken } from "./verify-subject-token.ts";

/** The project an exchange targets: its id, or its address `{base_url}/projects/{id}`. */
export function targetProjectId(target: string, baseUrl: string): string {
  const prefix = `${baseUrl.replace(/\/$/, "")}/projects/`;
  return target.startsWith(prefix) ? target.slice(prefix.length) : target;
}

/**
 * Exchanges an identity provider's JWT for a credential of the project it targets, if one of the
 * project's federation policies trusts it (RFC 8693). An unknown project is `invalid_target`.
 */
export async function exchangeSubjectToken(
  db: Database,
  deps: SubjectTokenDependencies & { ids: IdGenerator; baseUrl: string },
  input: { target: string; subjectToken: string; scope: string | undefined },
): Promise<AuthResult<FederatedCredential>> {
  const projectId = targetProjectId(input.target, deps.baseUrl);
  const project = hasIdShape(projectId, "project") ? await findProject(db, projectId) : undefined;
  if (project === undefined) return refuse("invalid_target", "No project with this id or address.");
  const matched = await verifySubjectToken(db, deps, {
    projectId: project.id,
    token: input.subjectToken,
    scope: input.scope,
  });
  if (!matched.ok) return matched;
  return issueFederatedCredential(db, deps, matched.value);
}
