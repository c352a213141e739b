import { request as httpRequest } from "node:http";
import fc from "fast-check";

/** One request of a fuzz run, as it goes on the wire. */
export interface FuzzRequest {
  method: "GET" | "POST";
  /** Path and query, already encoded (or deliberately mis-encoded). */
  path: string;
  headers?: Record<string, string | undefined>;
  body?: Uint8Array | string;
}

/** An HTTP surface to fuzz: adding one is one entry. */
export interface FuzzSurface {
  name: string;
  request: fc.Arbitrary<FuzzRequest>;
}

/** What a run of one surface saw; `failures` keeps a few of the inputs that broke the rule. */
export interface FuzzTally {
  surface: string;
  inputs: number;
  "2xx": number;
  "3xx": number;
  "4xx": number;
  "5xx": number;
  hangs: number;
  /** Connections closed with no answer. */
  dropped: number;
  stateChanges: number;
  failures: string[];
}

export interface FuzzRunOptions {
  baseUrl: string;
  runs: number;
  seed: number;
  /** A cheap summary of the stored state: a refused request must leave it equal. */
  fingerprint: () => Promise<string>;
  /** Past this, a request counts as a hang. */
  timeoutMs?: number;
  /** How many inputs between two `/healthz` checks. */
  healthEvery?: number;
}

const keptFailures = 5;

function describe(request: FuzzRequest): string {
  const body =
    request.body === undefined ? "" : Buffer.from(request.body).toString("utf8").slice(0, 300).replaceAll("\n", "\\n");
  return `${request.method} ${request.path.slice(0, 200)} ${JSON.stringify(request.headers ?? {})} ${body}`;
}

/**
 * One request on a connection of its own (`Connection: close`): a keep-alive socket that the server
 * closes while the client picks it up again would read as a dropped request that the server never saw.
 */
function send(baseUrl: string, request: FuzzRequest, timeoutMs: number): Promise<number | "hang" | "dropped"> {
  const headers = Object.fromEntries(
    Object.entries(request.headers ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  return new Promise((resolve) => {
    let answered = false;
    const outgoing = httpRequest(`${baseUrl}${request.path}`, {
      method: request.method,
      agent: false,
      headers: { ...headers, ...(body === undefined ? {} : { "content-length": String(body.length) }) },
    });
    const timer = setTimeout(() => {
      resolve("hang");
      outgoing.destroy();
    }, timeoutMs);
    outgoing.on("response", (response) => {
      answered = true;
      response.resume();
      response.on("end", () => {
        clearTimeout(timer);
        resolve(response.statusCode ?? 0);
      });
      response.on("error", () => undefined);
    });
    outgoing.on("error", () => {
      if (answered) return;
      clearTimeout(timer);
      resolve("dropped");
    });
    outgoing.end(body);
  });
}

async function healthy(baseUrl: string, timeoutMs: number): Promise<boolean> {
  const status = await send(baseUrl, { method: "GET", path: "/healthz" }, timeoutMs);
  return status === 200;
}

/**
 * Sends `runs` inputs of `surface` one after another, with a fixed seed, and counts the answers.
 * The rule for every input: no 5xx, no hang past the timeout, the server still answers `/healthz`,
 * and a refusal (any status but 2xx and 3xx) leaves the fingerprint as it was. Breaking it is
 * counted, not thrown, so that a run always ends with its figures.
 */
export async function fuzzSurface(surface: FuzzSurface, options: FuzzRunOptions): Promise<FuzzTally> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const healthEvery = options.healthEvery ?? 100;
  const tally: FuzzTally = {
    surface: surface.name,
    inputs: 0,
    "2xx": 0,
    "3xx": 0,
    "4xx": 0,
    "5xx": 0,
    hangs: 0,
    dropped: 0,
    stateChanges: 0,
    failures: [],
  };
  const fail = (why: string, request: FuzzRequest) => {
    if (tally.failures.length < keptFailures) tally.failures.push(`${why}: ${describe(request)}`);
  };
  let before = await options.fingerprint();
  let previous = "(none)";
  await fc.assert(
    fc.asyncProperty(surface.request, async (request) => {
      tally.inputs += 1;
      const status = await send(options.baseUrl, request, timeoutMs);
      if (status === "hang") {
        tally.hangs += 1;
        fail("hang", request);
      } else if (status === "dropped") {
        tally.dropped += 1;
        fail(`connection closed with no answer, after ${previous}`, request);
      } else {
        const family = `${Math.min(Math.floor(status / 100), 5)}xx` as "2xx" | "3xx" | "4xx" | "5xx";
        tally[family] += 1;
        if (family === "5xx") fail(String(status), request);
        const after = await options.fingerprint();
        if ((family === "4xx" || family === "5xx") && after !== before) {
          tally.stateChanges += 1;
          fail(`state changed on ${status} (${before} -> ${after})`, request);
        }
        before = after;
      }
      previous = describe(request);
      if (tally.inputs % healthEvery === 0 && !(await healthy(options.baseUrl, timeoutMs))) {
        throw new Error(`the server stopped answering /healthz after ${describe(request)}`);
      }
    }),
    { numRuns: options.runs, seed: options.seed, endOnFailure: true },
  );
  if (!(await healthy(options.baseUrl, timeoutMs))) throw new Error("the server stopped answering /healthz");
  return tally;
}

/** The tallies as a table, one line per surface and a total. */
export function formatFuzzTallies(tallies: readonly FuzzTally[], seconds: number): string {
  const columns = ["inputs", "2xx", "3xx", "4xx", "5xx", "hangs", "dropped", "stateChanges"] as const;
  const width = Math.max(...tallies.map((tally) => tally.surface.length), 5);
  const line = (name: string, values: number[]) =>
    `${name.padEnd(width)} ${values.map((value) => String(value).padStart(9)).join(" ")}`;
  const total = columns.map((column) => tallies.reduce((sum, tally) => sum + tally[column], 0));
  return [
    line("surface", []) + columns.map((column) => column.padStart(9)).join(" "),
    ...tallies.map((tally) =>
      line(
        tally.surface,
        columns.map((column) => tally[column]),
      ),
    ),
    line("total", total),
    `${total[0]} inputs in ${seconds.toFixed(1)} s: ${((total[0] ?? 0) / seconds).toFixed(0)} inputs/s`,
  ].join("\n");
}
