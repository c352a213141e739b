/**
 * A request path as the access log writes it. A wait token's URL carries its secret id in the path
 * (`/triggers/tokens/<id>`, under any base path): the log keeps the route and drops the id.
 */
const secretSegments = /(\/triggers\/tokens\/)[^/]+/;

export function loggablePath(path: string): string {
  return path.replace(secretSegments, "$1[redacted]");
}
