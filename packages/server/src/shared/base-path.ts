/** The path of a configured URL, without a trailing slash: "" at the root, "/weft" for https://host/weft. */
export function basePathOf(url: string): string {
  return new URL(url).pathname.replace(/\/+$/, "");
}

/**
 * Where the resource server's paths (`/rpc`, `/api`, `/openapi.json`) answer: under the path of
 * `{base_url}` and, when it has one, at the root too, so that one process works both behind a proxy
 * that passes the path on and behind one that strips it.
 */
export function resourceRootsOf(baseUrl: string): ("" | `/${string}`)[] {
  // A URL's pathname always starts with "/", so a base path that is not "" does too.
  const basePath = basePathOf(baseUrl) as "" | `/${string}`;
  return basePath === "" ? [""] : [basePath, ""];
}
