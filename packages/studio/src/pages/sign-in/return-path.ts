/**
 * Where to go after sign-in: the page the person wanted, when it is a path of Studio itself; a
 * `next` pointing elsewhere (another origin, `//host`) is ignored rather than followed.
 */
export function returnPath(next: string | null): string {
  if (next === null || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "/";
  return next.startsWith("/sign-in") ? "/" : next;
}
