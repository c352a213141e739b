import { type IncomingHttpHeaders, type IncomingMessage, request, type ServerResponse } from "node:http";
import { formatHostPort } from "./address-policy.ts";
import { openExchange } from "./egress-exchange.ts";
import { egressStatusPath } from "./egress-refusal.ts";
import { answer, hopByHop, relay } from "./proxy-answers.ts";
import { type ProxiedChild, type ProxyContext, upstreamDeadlineMs } from "./proxy-context.ts";

/**
 * Forwards one absolute-URI http request of `child` to the address its host was checked at, or
 * answers why not (a malformed URL, https, the budget used up, a refused destination, the
 * descriptors' share); the child's forwarder may also ask why its last connection was cut.
 */
export async function forwardRequest(
  context: ProxyContext,
  child: ProxiedChild,
  incoming: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  if (incoming.url === egressStatusPath) {
    // The child's forwarder asks why a connection it relayed was cut.
    if (!child.budget.usedUp()) return void response.writeHead(204, { connection: "close" }).end();
    return answer(response, 200, context.budgetReason);
  }
  let url: URL;
  try {
    url = new URL(incoming.url ?? "");
  } catch {
    return answer(response, 400, "egress refused: expected an absolute http:// URL (https goes through CONNECT)");
  }
  if (url.protocol !== "http:") {
    return answer(response, 400, "egress refused: only http:// URLs are proxied; https uses CONNECT");
  }
  if (child.budget.usedUp()) return answer(response, 403, context.budgetReason);
  const port = url.port === "" ? 80 : Number(url.port);
  const destination = await context.destinationOf(url.hostname, port);
  if (!destination.ok) return answer(response, destination.status, destination.reason);
  if (context.descriptors.inUse() + 1 > context.limits.fdShare) return answer(response, 503, context.fdShareReason);
  const target = formatHostPort(url.hostname.replace(/^\[(.*)\]$/, "$1"), port);
  // The absolute URI decides the host, whatever Host header came with it (RFC 9112 §3.2.2).
  const headers: IncomingHttpHeaders = { ...incoming.headers, host: url.host };
  for (const name of hopByHop) delete headers[name];
  const upstream = request({
    host: destination.address,
    port,
    method: incoming.method,
    path: `${url.pathname}${url.search}`,
    headers,
    setHost: false,
    agent: false,
  });
  upstream.once("socket", (socket) => context.descriptors.hold(socket));
  const exchange = openExchange(context, child, () => {
    upstream.destroy();
    response.destroy();
  });
  let timedOut = false;
  const cancelDeadline = context.timers.after(upstreamDeadlineMs, () => {
    timedOut = true;
    upstream.destroy();
    answer(response, 504, `egress to ${target} failed: it did not answer within ${upstreamDeadlineMs / 1000} s`);
  });
  upstream.on("response", (reply) => {
    cancelDeadline();
    exchange.started();
    const replyHeaders = { ...reply.headers };
    for (const name of hopByHop) delete replyHeaders[name];
    response.writeHead(reply.statusCode ?? 502, replyHeaders);
    relay(reply, response, exchange.counted);
  });
  upstream.on("error", (error) => {
    cancelDeadline();
    exchange.close();
    if (timedOut) return;
    if (response.headersSent) response.destroy();
    else answer(response, 502, `egress to ${target} failed: it did not answer (${error.message})`);
  });
  response.once("close", () => {
    exchange.close();
    upstream.destroy();
  });
  relay(incoming, upstream, exchange.counted);
}
