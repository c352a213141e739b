/** The path of a configured URL, without a trailing slash: "" at the root, "/weft" for https://host/weft. */
export function basePathOf(url: string): string {
  return new URL(url).pathname.replace(/\/+$/, "");
}
