import { createServer } from "node:http";

export interface BaselineServer {
  url: string;
  close(): Promise<void>;
}

/**
 * The yardstick of the ingress benchmark: a bare `node:http` server that reads the request body and
 * answers 202 with a small JSON body, doing nothing else. Ingress throughput is reported as a share
 * of what this server manages on the same machine in the same run.
 */
export async function startBaselineServer(): Promise<BaselineServer> {
  const body = JSON.stringify({ message: "accepted", executionIds: ["exe_baseline"] });
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(202, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("the baseline server has no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
