import type { IncomingMessage } from "node:http";
import { connect, type Socket } from "node:net";
import { formatHostPort } from "./address-policy.ts";
import { openExchange } from "./egress-exchange.ts";
import { refuseSocket, relay } from "./proxy-answers.ts";
import { type ProxiedChild, type ProxyContext, upstreamDeadlineMs } from "./proxy-context.ts";

/**
 * Opens a CONNECT tunnel of `child` (https) to the address its host was checked at, or refuses it
 * (a malformed target, the budget used up, a refused destination, the descriptors' share).
 */
export async function openTunnel(
  context: ProxyContext,
  child: ProxiedChild,
  incoming: IncomingMessage,
  client: Socket,
  head: Buffer,
): Promise<void> {
  const refuse = (status: number, reason: string): void => refuseSocket(client, status, reason);
  const parsed = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(incoming.url ?? "");
  const host = parsed?.[1];
  const port = Number(parsed?.[2]);
  if (host === undefined || port < 1 || port > 65535) return refuse(400, "egress refused: expected CONNECT host:port");
  if (child.budget.usedUp()) return refuse(403, context.budgetReason);
  const destination = await context.destinationOf(host, port);
  if (!destination.ok) return refuse(destination.status, destination.reason);
  if (context.descriptors.inUse() + 1 > context.limits.fdShare) return refuse(503, context.fdShareReason);
  if (client.destroyed) return;
  const target = formatHostPort(host.replace(/^\[(.*)\]$/, "$1"), port);
  const upstream: Socket = connect(port, destination.address);
  context.descriptors.hold(upstream);
  const exchange = openExchange(context, child, () => {
    upstream.destroy();
    client.destroy();
  });
  let connected = false;
  let timedOut = false;
  const cancelDeadline = context.timers.after(upstreamDeadlineMs, () => {
    timedOut = true;
    upstream.destroy();
    exchange.close();
    refuse(504, `egress to ${target} failed: it did not answer within ${upstreamDeadlineMs / 1000} s`);
  });
  upstream.once("connect", () => {
    cancelDeadline();
    exchange.started();
    connected = true;
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0 && exchange.counted(head.length)) upstream.write(head);
    relay(upstream, client, exchange.counted);
    relay(client, upstream, exchange.counted);
  });
  upstream.on("error", (error) => {
    cancelDeadline();
    exchange.close();
    if (timedOut) return;
    if (!connected) refuse(502, `egress to ${target} failed: it did not answer (${error.message})`);
    else client.destroy();
  });
  upstream.once("close", () => {
    exchange.close();
    if (connected) client.destroySoon();
  });
  client.once("close", () => {
    exchange.close();
    upstream.destroy();
  });
}
