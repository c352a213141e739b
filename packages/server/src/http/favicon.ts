import { Hono } from "hono";
import type { AppEnv } from "./app-env.ts";

/** The platform's icon; Studio ships the same one (`packages/studio/public/favicon.svg`). */
export const faviconSvg =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><title>Weft</title><rect width="32" height="32" rx="7" fill="#1f4fd1"/><path d="M6 9h4l2.5 11L16 9h0l3.5 11L22 9h4l-5 15h-3.5L16 15l-1.5 9H11z" fill="#fff"/></svg>\n';

/**
 * `GET /favicon.ico` (and `/favicon.svg`): browsers ask every origin for the first on their own,
 * so the platform's pages would otherwise log a 404 each. An SVG answers both, which browsers accept
 * whatever the name.
 */
export function faviconRoutes(): Hono<AppEnv> {
  const serve = () =>
    new Response(faviconSvg, {
      headers: { "Content-Type": "image/svg+xml", "Cache-Control": "public, max-age=86400" },
    });
  return new Hono<AppEnv>().get("/favicon.ico", serve).get("/favicon.svg", serve);
}
