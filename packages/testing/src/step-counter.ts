import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface StepCounter {
  server: Server;
  base: string;
  hits: Map<string, number>;
  /** Every run's name in the order the runs arrived, to tell a step run again after a later step began. */
  runs: string[];
  /** Resolves once the first "block" request arrives, which is then held open for good. */
  blocked: Promise<void>;
  /** Stops serving, dropping the held "block" request. */
  close(): void;
}

/** Counts the runs of each step; the first "block" request is held open until the test lets go. */
export function startStepCounter(): Promise<StepCounter> {
  const hits = new Map<string, number>();
  const runs: string[] = [];
  let announceBlocked: () => void = () => undefined;
  const blocked = new Promise<void>((resolve) => {
    announceBlocked = resolve;
  });
  const server = createServer((request, response) => {
    const name = (request.url ?? "/").slice(1);
    const count = (hits.get(name) ?? 0) + 1;
    hits.set(name, count);
    runs.push(name);
    if (name === "block" && count === 1) {
      announceBlocked();
      return;
    }
    response.end(`${name}#${count}`);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      const close = () => {
        server.closeAllConnections();
        server.close();
      };
      resolve({ server, base: `http://127.0.0.1:${port}`, hits, runs, blocked, close });
    });
  });
}

/**
 * A workflow, "counted", that runs the steps "first", "block" and "last", each fetching its name
 * from the step counter at `input.base`: the counter tells which ran again, and holds the run at
 * "block". A `workflow({…})` expression for a test's `weft.config.ts`.
 */
export const countedStepsWorkflow = `workflow({
  name: "counted",
  async run(input: { base: string }, ctx) {
    const hit = (path: string) => ctx.step(path, async () => (await fetch(input.base + "/" + path)).text());
    return [await hit("first"), await hit("block"), await hit("last")];
  },
})`;
