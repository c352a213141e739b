import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP proxy in front of a server, to take the network away under a live client: `cut()` resets
 * every open connection and refuses new ones, as a database restart does; `restore()` lets them in.
 */
export interface TcpProxy {
  /** `target` with its host and port replaced by the proxy's. */
  url: string;
  cut(): void;
  restore(): void;
  /** How many connections were refused while cut. */
  refusals(): number;
  close(): Promise<void>;
}

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const targetUrl = new URL(target);
  const sockets = new Set<Socket>();
  let refusing = false;
  let refusals = 0;
  const server: Server = createServer((client) => {
    if (refusing) {
      refusals += 1;
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(Number(targetUrl.port || 5432), targetUrl.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("no port");
  const url = new URL(target);
  url.hostname = "127.0.0.1";
  url.port = String(address.port);
  return {
    url: url.href,
    cut: () => {
      refusing = true;
      for (const socket of sockets) socket.resetAndDestroy();
    },
    restore: () => {
      refusing = false;
    },
    refusals: () => refusals,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
