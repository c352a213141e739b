import { readFile } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { type Context, Hono } from "hono";
import { getMimeType } from "hono/utils/mime";
import { messagePage } from "../../auth/pages/approval-pages.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { jsonError } from "../../http/errors.ts";
import { setResponseHeader } from "../../http/response-headers.ts";

/** Where `npm run build:studio` writes the app, inside the server package. */
export const shippedStudioDir = fileURLToPath(new URL("../../../studio-dist", import.meta.url));

/** The app's own code only: no inline script or style, no other origin, never framed. */
export const studioContentSecurityPolicy =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** Vite names every file under `assets/` by a hash of its content, so a name never changes meaning. */
const hashedAssetCache = "public, max-age=31536000, immutable";

async function readIfPresent(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "EISDIR") {
      return undefined;
    }
    throw error;
  }
}

/**
 * The prebuilt single-page app at `{studioPath}` from `dir`: files by path, and `index.html` for
 * any path without an extension, so the app's own router answers deep links. Read from disk on
 * each request: the build can be replaced without a restart, and Studio's traffic is one person's.
 */
export function studioAppRoutes(studioPath: string, dir: string): Hono<AppEnv> {
  const root = resolve(dir);
  const app = new Hono<AppEnv>();

  const serve = async (c: Context<AppEnv>) => {
    const relative = c.req.path === studioPath ? "" : c.req.path.slice(studioPath.length + 1);
    // The API's paths are never the app's: an unknown one is a 404, not the app's page.
    if (/^(api|rpc)(\/|$)/.test(relative)) return jsonError(c, 404, "not_found", `No route for GET ${c.req.path}.`);
    const index = await readIfPresent(join(root, "index.html"));
    if (index === undefined) {
      c.header("Cache-Control", "no-store");
      return c.html(
        messagePage(
          "Weft Studio is not built",
          "This server has no build of Studio. Run npm run build:studio, then reload this page.",
        ),
        503,
      );
    }
    setResponseHeader(c, "Content-Security-Policy", studioContentSecurityPolicy);
    if (extname(relative) === "") {
      c.header("Cache-Control", "no-cache");
      return c.body(new Uint8Array(index), 200, { "Content-Type": "text/html; charset=utf-8" });
    }
    const file = resolve(root, relative);
    const content = file.startsWith(`${root}${sep}`) ? await readIfPresent(file) : undefined;
    if (content === undefined) return jsonError(c, 404, "not_found", `No file at ${c.req.path}.`);
    c.header("Cache-Control", relative.startsWith("assets/") ? hashedAssetCache : "no-cache");
    return c.body(new Uint8Array(content), 200, {
      "Content-Type": getMimeType(file) ?? "application/octet-stream",
    });
  };

  app.get(studioPath, serve);
  app.get(`${studioPath}/*`, serve);
  return app;
}
