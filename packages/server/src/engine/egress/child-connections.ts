import type { Socket } from "node:net";
import { fdsPerExchange } from "./open-file-share.ts";
import { rawAnswer, refuseSocket } from "./proxy-answers.ts";
import { type ProxiedChild, type ProxyContext, refusalLingerMs } from "./proxy-context.ts";

/**
 * A connection to a child's socket: counted, then handed to `admit` when within the limits (the
 * descriptors' share, the child's connections), else refused at once.
 */
export function acceptConnection(
  context: ProxyContext,
  child: ProxiedChild,
  socket: Socket,
  admit: (socket: Socket) => void,
): void {
  const { descriptors, limits, timers } = context;
  const refusal =
    descriptors.inUse() + fdsPerExchange > limits.fdShare
      ? context.fdShareReason
      : child.connections.size >= limits.connectionsPerChild
        ? `egress refused: this sandbox holds ${limits.connectionsPerChild} connections to the egress proxy, its limit (WEFT_EGRESS_CONNECTIONS)`
        : undefined;
  descriptors.hold(socket);
  if (refusal === undefined) admit(socket);
  // As many refused connections linger as a child may hold open ones, within the share; past
  // that, a flood of them is closed at once.
  else if (child.lingering >= limits.connectionsPerChild || descriptors.inUse() + 1 > limits.fdShare) {
    refuseSocket(socket, 503, refusal);
  } else {
    child.lingering += 1;
    socket.on("error", () => socket.destroy());
    // The peer's end closes the socket (no half-open sockets); a peer that never ends is cut.
    socket.end(rawAnswer(503, refusal));
    socket.resume();
    const cancelLinger = timers.after(refusalLingerMs, () => socket.destroy());
    socket.once("close", () => {
      cancelLinger();
      child.lingering -= 1;
    });
  }
}
