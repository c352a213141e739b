import { createServer, type Socket } from "node:net";

/**
 * A loopback TCP listener for the neighbours benchmark's egress attack, in its own process so that
 * the connections it holds cost neither the platform nor the load generator: it accepts every
 * connection and never answers, as a slow destination would. What comes in is read and dropped,
 * so that a connection's end is seen (a paused socket would never read its FIN). Sends `{port}` over
 * IPC once listening; answers each `{stats}` with how many connections it holds, and the most it
 * held and how many it accepted since the previous `{stats}`. Exits when its parent goes.
 */
export interface SlowListenerStats {
  open: number;
  peakOpen: number;
  accepted: number;
}

const held = new Set<Socket>();
let peakOpen = 0;
let accepted = 0;
const server = createServer((socket) => {
  accepted += 1;
  held.add(socket);
  peakOpen = Math.max(peakOpen, held.size);
  socket.on("error", () => undefined);
  socket.resume();
  socket.on("close", () => held.delete(socket));
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the slow listener has no TCP address");
  process.send?.({ port: address.port });
});
process.on("message", () => {
  const stats: SlowListenerStats = { open: held.size, peakOpen, accepted };
  peakOpen = held.size;
  accepted = 0;
  process.send?.(stats);
});
process.on("disconnect", () => process.exit(0));
process.once("SIGTERM", () => process.exit(0));
