import type { Context } from "hono";
import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { maxTokenDataBytes } from "../engine/limits.ts";
import { tokenHashOf } from "../engine/wait-token-ids.ts";
import type { AppEnv } from "../http/app-env.ts";
import { readBodyText } from "../http/request-body.ts";
import type { ServiceFailure, ServiceResult } from "../shared/service-result.ts";
import { parseStorableJson } from "../shared/storable-json.ts";
import { completeWaitToken } from "../wait-tokens/complete-wait-token.ts";
import { type FoundWaitToken, findWaitToken } from "../wait-tokens/find-wait-token.ts";
import { tokenDecisions } from "../wait-tokens/token-decisions.ts";
import { type CsrfBinding, checkCsrfTokenUnderKeys, csrfFieldName, issueCsrfToken } from "./csrf-token.ts";
import { renderErrorPage } from "./form-page.ts";
import type { Budget } from "./hot-path-budget.ts";
import { type IngressContext, runHotPath } from "./ingress-context.ts";
import { ingressError, ingressFailure, overBudgetMessage } from "./ingress-errors.ts";
import { renderMembersOnlyTokenPage, renderTokenAnsweredPage, renderTokenPage } from "./token-page.ts";
import { isJsonContentType } from "./webhook-input.ts";

/** Pages carry a CSRF token, and the URL a secret: never cache them anywhere. */
const noStore = { "Cache-Control": "no-store" };

/**
 * The page's CSRF binding: the token's hash stands where a form's name does, behind a `:` that no
 * form name holds, so a form's CSRF token never answers a wait token's page, nor the reverse.
 */
function csrfBindingOf(token: FoundWaitToken, tokenId: string): CsrfBinding {
  return { projectId: token.projectId, formName: `token:${tokenHashOf(tokenId)}` };
}

function errorPage(c: Context<AppEnv>, status: ContentfulStatusCode, title: string, message: string): Response {
  return c.html(renderErrorPage({ status, title, message }), status, noStore);
}

/** The page of a token that cannot be answered: gone (404) or answered already (409). */
function unanswerablePage(c: Context<AppEnv>, failure: ServiceFailure): Response {
  if (failure.kind === "conflict") {
    return errorPage(c, 409, "Already answered", "Someone has already answered this request; nothing was changed.");
  }
  if (failure.kind === "forbidden") {
    return errorPage(c, 403, "Members only", "Only a signed-in member of the workspace can answer this request.");
  }
  return errorPage(c, 404, "Link not valid", "This link has expired or does not exist. Nothing was changed.");
}

async function showPage(c: Context<AppEnv>, ingress: IngressContext, tokenId: string): Promise<Response> {
  const { platform } = ingress;
  const found = await findWaitToken(platform.database.db, platform, tokenId);
  if (!found.ok) return unanswerablePage(c, found.failure);
  const token = found.value;
  if (token.status === "completed") return unanswerablePage(c, { kind: "conflict", message: "" });
  const request = {
    name: token.name,
    expiresAt: token.expiresAt,
    title: token.title,
    description: token.description,
    fields: token.fields,
  };
  if (token.approvers === "members") {
    const studioUrl = `${platform.config.baseUrl.replace(/\/$/, "")}/studio/executions/${token.executionId}`;
    return c.html(renderMembersOnlyTokenPage({ ...request, studioUrl }), 200, noStore);
  }
  const page = renderTokenPage({
    ...request,
    action: `/triggers/tokens/${tokenId}`,
    csrfToken: issueCsrfToken(ingress.csrfKey, csrfBindingOf(token, tokenId), platform.clock.now()),
  });
  return c.html(page, 200, noStore);
}

/** A POST that answers a wait token: the request, its budget, the token's id and the body read. */
interface TokenAnswer {
  c: Context<AppEnv>;
  ingress: IngressContext;
  budget: Budget;
  tokenId: string;
  body: string;
}

/** Completes the token with `data`, unless the request's budget runs out before the commit. */
function completeToken(answer: TokenAnswer, data: unknown): Promise<ServiceResult<{ executionId: string }>> {
  const { platform } = answer.ingress;
  return completeWaitToken(
    platform.database.db,
    platform,
    { tokenId: answer.tokenId, data },
    { beforeCommit: () => answer.budget.throwIfExpired() },
  );
}

/** Approve or Reject from the page: its CSRF token must come from this token's page. */
async function answerFromPage(answer: TokenAnswer): Promise<Response> {
  const { c, tokenId } = answer;
  const { platform } = answer.ingress;
  const found = await findWaitToken(platform.database.db, platform, tokenId);
  if (!found.ok) return unanswerablePage(c, found.failure);
  const fields = new URLSearchParams(answer.body);
  const csrf = checkCsrfTokenUnderKeys(
    answer.ingress.csrfCheckKeys,
    csrfBindingOf(found.value, tokenId),
    fields.get(csrfFieldName) ?? undefined,
    platform.clock.now(),
  );
  if (!csrf.ok) {
    return errorPage(
      c,
      403,
      csrf.reason === "expired" ? "This page has expired" : "This answer was refused",
      "It did not come from this request's page, or the page is too old. Open the link again and answer there.",
    );
  }
  const decision = fields.get("decision");
  if (decision !== "approve" && decision !== "reject") {
    return errorPage(c, 400, "No answer given", "Press Approve or Reject on the page.");
  }
  const completed = await completeToken(answer, tokenDecisions[decision]);
  if (!completed.ok) return unanswerablePage(c, completed.failure);
  return c.html(renderTokenAnsweredPage(decision), 200, noStore);
}

/** A JSON completion: the body is what the workflow receives as `data`. */
async function completeFromJson(answer: TokenAnswer): Promise<Response> {
  const { c, body } = answer;
  const parsed = body.trim() === "" ? { ok: true as const, value: null } : parseStorableJson(body);
  if (!parsed.ok) return ingressError(c, "invalid_body", parsed.message);
  const completed = await completeToken(answer, parsed.value);
  if (!completed.ok) return ingressFailure(c, completed.failure);
  return c.json({ message: "Token completed." }, 202);
}

/**
 * `GET /triggers/tokens/:tokenId`, the Approve/Reject page (a GET changes nothing), and `POST`,
 * which completes the token: from the page (a form encoding, with its CSRF token) or with a JSON
 * body. Public: the 256-bit id in the URL is the credential. Bodies over 256 KiB get 413.
 */
export function tokenRoutes(ingress: IngressContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const path = "/triggers/tokens/:tokenId";
  app.get(path, (c) =>
    runHotPath(
      ingress,
      c,
      () => showPage(c, ingress, c.req.param("tokenId")),
      () => errorPage(c, 503, "Please try again", "The page could not be shown just now. Reload it in a few seconds."),
    ),
  );
  app.post(path, async (c) => {
    const tokenId = c.req.param("tokenId");
    const type = c.req.header("content-type")?.toLowerCase() ?? "";
    const fromPage = type.startsWith("application/x-www-form-urlencoded");
    if (!fromPage && !isJsonContentType(type)) {
      return ingressError(c, "unsupported_media_type", "Send the data as JSON (Content-Type: application/json).");
    }
    const body = await readBodyText(c, maxTokenDataBytes);
    if (!body.ok) {
      return fromPage
        ? errorPage(c, 413, "Too large", "The answer is larger than this page can take.")
        : ingressError(c, "payload_too_large", `The body is larger than ${maxTokenDataBytes} bytes.`);
    }
    return runHotPath(
      ingress,
      c,
      (budget) => {
        const answer = { c, ingress, budget, tokenId, body: body.text };
        return fromPage ? answerFromPage(answer) : completeFromJson(answer);
      },
      () =>
        fromPage
          ? errorPage(c, 503, "Please try again", "Your answer could not be recorded just now; nothing was saved.")
          : ingressError(c, "unavailable", overBudgetMessage),
    );
  });
  return app;
}
