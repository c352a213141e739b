/**
 * The input a webhook call gives its workflow:
 *
 * ```json
 * { "body": …, "headers": { "content-type": "application/json", … }, "query": { "a": "1", "b": ["2", "3"] }, "method": "POST" }
 * ```
 *
 * - `body`: the parsed JSON when the content type is JSON (`application/json` or `*+json`), else the
 *   raw body as UTF-8 text; `null` when the body is empty.
 * - `headers`: lower-case names; credentials (`authorization`, `cookie`, …) and the webhook's own
 *   secret header are left out, so no secret is ever stored with an execution.
 * - `query`: each parameter's value, or an array of values when it is repeated.
 */
export interface WebhookInput<TBody = unknown> {
  body: TBody;
  headers: Record<string, string>;
  query: Record<string, string | string[]>;
  method: string;
}
