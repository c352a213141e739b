import type { Context } from "hono";
import { acceptedSecretKeys } from "../config/secret-key.ts";
import type { AppEnv } from "../http/app-env.ts";
import { type FormField, readFormFields } from "../http/form-fields.ts";
import { approvalCsrfTokenIsValidUnder } from "./approval-csrf.ts";
import { type Decision, decisionOf } from "./decide-registration.ts";
import { messagePage, unreadableFormPage } from "./pages/approval-pages.ts";

/** The statuses the pages of a mailed link and of the sign-in forms answer with. */
export type PageStatus = 200 | 400 | 403 | 404 | 409 | 410;

/** A page and the status it is answered with. */
export interface StatusPage {
  html: string;
  status: PageStatus;
}

/** The page of a title and a sentence, answered with `status`. */
export function statusMessage(title: string, text: string, status: PageStatus): StatusPage {
  return { html: messagePage(title, text), status };
}

/** An HTML page of one link's or sign-in's state: no cache may keep it, for the next visit may differ. */
export function noStorePage(c: Context<AppEnv>, html: string, status: PageStatus = 200): Response {
  c.header("Cache-Control", "no-store");
  return c.html(html, status);
}

/**
 * The fields of the form posted from a mailed link's page, once its CSRF token checks out for that
 * link under the current or the previous secret key; otherwise the page that refuses the post.
 */
export async function readLinkForm(
  c: Context<AppEnv>,
  config: { secretKey: Buffer; secretKeyPrevious?: Buffer | undefined },
  token: string,
  now: Date,
): Promise<FormField | Response> {
  const field = await readFormFields(c);
  if (field === undefined) return noStorePage(c, unreadableFormPage(), 400);
  if (!approvalCsrfTokenIsValidUnder(acceptedSecretKeys(config), token, field("csrf"), now)) {
    return noStorePage(
      c,
      messagePage("Please try again", "This form is out of date. Open the link from the mail again."),
      403,
    );
  }
  return field;
}

/**
 * The decision posted from an approval link's page, read as `readLinkForm` reads; a post without
 * one of its buttons' decisions is refused with `buttonsHint`, which says how to choose.
 */
export async function readLinkDecision(
  c: Context<AppEnv>,
  config: { secretKey: Buffer; secretKeyPrevious?: Buffer | undefined },
  token: string,
  now: Date,
  buttonsHint: string,
): Promise<Decision | Response> {
  const field = await readLinkForm(c, config, token, now);
  if (field instanceof Response) return field;
  return decisionOf(field("decision")) ?? noStorePage(c, messagePage("Choose an answer", buttonsHint), 400);
}
