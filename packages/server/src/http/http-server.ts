import { createServer, type RequestListener, type Server } from "node:http";
import { EventStreamAwareResponse } from "./event-stream-response.ts";
import { DiscardableRequest } from "./unread-body.ts";

export interface RunningHttpServer {
  server: Server;
  port: number;
  /**
   * Stops accepting, lets in-flight requests finish, and force-closes what is left after `graceMs`.
   * Event streams are cut at once: they never finish, and their clients resume them elsewhere.
   */
  close(graceMs: number): Promise<void>;
}

/**
 * How long an idle keep-alive connection stays open. A client closes its idle connections on its
 * own timer (fetch: the announced timeout less 2 s); when the server closes first, a request the
 * client sends at that moment is reset. A minute and more leaves short idle gaps no server close
 * to meet, and lets a balancer that keeps connections 60 s close first.
 */
export const keepAliveTimeoutMs = 65_000;

export async function listen(listener: RequestListener, port: number, host: string): Promise<RunningHttpServer> {
  const server = createServer(
    {
      keepAliveTimeout: keepAliveTimeoutMs,
      IncomingMessage: DiscardableRequest,
      ServerResponse: EventStreamAwareResponse,
    },
    listener,
  );
  const responses = new Set<EventStreamAwareResponse<DiscardableRequest>>();
  server.on("request", (_request, response: EventStreamAwareResponse<DiscardableRequest>) => {
    responses.add(response);
    response.once("close", () => responses.delete(response));
  });
  const cutEventStreams = () => {
    for (const response of responses) if (response.streamsEvents) response.destroy();
  };
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const boundPort = typeof address === "object" && address !== null ? address.port : port;
  return {
    server,
    port: boundPort,
    close: (graceMs) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        // A keep-alive connection turns idle only when its in-flight response ends; sweep
        // until none is left instead of waiting for the keep-alive timeout; a stream that a request
        // still in the drain opens is cut at the next sweep.
        const sweep = setInterval(() => {
          cutEventStreams();
          server.closeIdleConnections();
        }, 50);
        server.close(() => {
          clearTimeout(force);
          clearInterval(sweep);
          resolve();
        });
        cutEventStreams();
        server.closeIdleConnections();
      }),
  };
}
