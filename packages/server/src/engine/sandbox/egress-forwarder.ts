/**
 * Preloaded (`--import`) into a sandbox child whose network namespace is empty. Node's own proxy
 * support (NODE_USE_ENV_PROXY with HTTP_PROXY/HTTPS_PROXY) takes a TCP URL only, while the
 * platform's egress proxy is reachable only through a Unix socket bound into the sandbox: this
 * relays the one to the other, before any user code loads. It imports only `node:` built-ins, as
 * child-runtime.ts does.
 */
import { connect, createServer } from "node:net";

const socketPath = process.env.WEFT_EGRESS_SOCKET;
const proxyUrl = process.env.HTTP_PROXY;

if (socketPath !== undefined && proxyUrl !== undefined) {
  const server = createServer((client) => {
    const upstream = connect(socketPath);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  server.unref();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(Number(new URL(proxyUrl).port), "127.0.0.1", () => resolve());
  });
}
