import { Hono } from "hono";
import { html } from "hono/html";
import { page } from "../auth/pages/page-layout.ts";
import type { Config } from "../config/config.ts";
import type { AppEnv } from "./app-env.ts";

/**
 * `GET /`: where a person who opens the platform's address lands. It points at what answers here,
 * by role, so that nobody meets a bare 404 JSON body first.
 */
export function homePageRoutes(config: Pick<Config, "roles" | "baseUrl" | "authUrl">): Hono<AppEnv> {
  // Studio is served wherever the API is (studio-routes.ts).
  const studioUrl = config.roles.has("api") ? `${config.baseUrl}/studio` : undefined;
  const links = [
    ...(config.roles.has("api")
      ? [
          html`<li><a href="${config.baseUrl}/openapi.json">${config.baseUrl}/openapi.json</a>: the API reference (OpenAPI 3.1); the same procedures answer under <code>/rpc</code> for <code>@weft/client</code> and the <code>weft</code> CLI.</li>`,
        ]
      : []),
    ...(config.roles.has("auth")
      ? [
          html`<li><a href="${config.authUrl}/auth.md">${config.authUrl}/auth.md</a>: how an AI agent registers and gets a credential.</li>`,
        ]
      : []),
    html`<li><a href="/healthz">/healthz</a>: whether this process and its database answer.</li>`,
  ];
  const body = page(
    "Weft is running",
    html`<h1>Weft is running</h1>
      ${studioUrl === undefined ? "" : html`<p><strong><a href="${studioUrl}">Open Weft Studio</a></strong>: your projects, executions, schedules and team, in the browser.</p>`}
      <p>Deploy workflows, forms and webhooks with the <code>weft</code> CLI: <code>weft login</code>, then <code>weft init</code> and <code>weft deploy</code> in a project directory. The README of the Weft repository walks through it.</p>
      <ul>
        ${links}
      </ul>`,
  );
  return new Hono<AppEnv>().get("/", (c) => {
    // The answer depends on Accept: a cache must not give a browser's redirect to a script, or the reverse.
    c.header("Vary", "Accept");
    // A browser asking for a page is a person: they go to Studio. Scripts and API clients (no
    // text/html in Accept) keep getting this page as before.
    if (studioUrl !== undefined && acceptsHtml(c.req.header("accept"))) return c.redirect(studioUrl, 302);
    return c.html(body);
  });
}

/** Whether an Accept header asks for HTML by name (browsers' navigations do; "any type" alone does not). */
function acceptsHtml(accept: string | undefined): boolean {
  return (accept ?? "").split(",").some((range) => {
    const [type = "", ...parameters] = range.split(";").map((part) => part.trim().toLowerCase());
    return type === "text/html" && !parameters.some((parameter) => /^q=0(\.0*)?$/.test(parameter));
  });
}
