import type { StoredForm } from "../db/schema/stored-manifest.ts";
import { basicAuthMatches, parseBasicAuthorization } from "./basic-auth.ts";
import type { ActiveDefinition } from "./find-ingress-definitions.ts";

export type FormAccess =
  | { ok: true; form: ActiveDefinition<StoredForm> }
  | { ok: false; refusal: "not_found" | "unauthorized" | "disabled"; form?: ActiveDefinition<StoredForm> };

/**
 * Who may reach a form from the internet, in this order: an unknown or internal form does not
 * exist (404); a form with basic auth needs its credentials (401) before it tells whether it is
 * disabled (403), so a closed form reveals nothing more than an open one to strangers.
 */
export function checkFormAccess(
  form: ActiveDefinition<StoredForm> | undefined,
  authorization: string | undefined,
): FormAccess {
  if (form === undefined || form.definition.visibility === "internal") return { ok: false, refusal: "not_found" };
  const basicAuth = form.definition.basicAuth;
  if (basicAuth !== undefined && !basicAuthMatches(parseBasicAuthorization(authorization), basicAuth)) {
    return { ok: false, refusal: "unauthorized", form };
  }
  if (form.definition.disabled) return { ok: false, refusal: "disabled", form };
  return { ok: true, form };
}
