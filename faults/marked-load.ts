import autocannon from "autocannon";
import { faultForm, faultWebhook, faultWorkflow } from "./fault-project.ts";

export type Surface = "webhook" | "form" | "api";

/** One answered request (for `workflows.run`, one attempt of a call). */
export interface Answer {
  surface: Surface;
  marker: string;
  status: number;
  retryAfter: boolean;
  sentAt: number;
  answeredAt: number;
}

/**
 * What the load saw: every answer, the markers acknowledged with a 2xx (each must have exactly one
 * execution), requests that failed without an answer (a killed process resets its connections) and
 * requests that got no answer within the client's timeout.
 */
export interface LoadRecord {
  answers: Answer[];
  acknowledged: Map<string, Surface>;
  /** The execution id a `workflows.run` call was answered with, per marker, across its retries. */
  apiExecutionIds: Map<string, Set<string>>;
  apiRetries: number;
  unanswered: number;
  timedOut: number;
}

export function emptyLoadRecord(): LoadRecord {
  return {
    answers: [],
    acknowledged: new Map(),
    apiExecutionIds: new Map(),
    apiRetries: 0,
    unanswered: 0,
    timedOut: 0,
  };
}

/** The client's patience: an answer later than the ingress budget (5 s) is a hang, recorded as such. */
const clientTimeoutSeconds = 10;
let markerCount = 0;

/** A marker no other request carries, and a step count of 3 to 5 derived from it. */
function nextData(prefix: string): { marker: string; steps: number } {
  markerCount += 1;
  return { marker: `${prefix}${markerCount}`, steps: 3 + (markerCount % 3) };
}

interface MarkedContext {
  marker?: string;
  sentAt?: number;
}

/**
 * Drives webhook or programmatic-form POSTs at one platform with autocannon, in runs of a few
 * seconds for as long as `keepGoing()` says, each body carrying a fresh marker, and records every
 * answer.
 */
export async function driveIngress(options: {
  baseUrl: string;
  projectId: string;
  surface: "webhook" | "form";
  connections: number;
  ratePerSecond: number;
  keepGoing: () => boolean;
  /** Whether the platform serves: while it is down (killed, starting) the load waits instead. */
  serving: () => boolean;
  record: LoadRecord;
}): Promise<void> {
  while (options.keepGoing()) {
    // Without the wait, autocannon's connections retry a dead port in a tight loop, taking the CPU
    // the restarting platform needs.
    if (options.serving()) await driveIngressFor(2, options);
    else await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function driveIngressFor(
  seconds: number,
  options: Omit<Parameters<typeof driveIngress>[0], "keepGoing" | "serving">,
): Promise<void> {
  const { record, surface } = options;
  const path =
    surface === "webhook"
      ? `/triggers/webhooks/${options.projectId}/${faultWebhook}`
      : `/forms/${faultForm}?projectId=${options.projectId}`;
  const instance = autocannon({
    url: options.baseUrl,
    connections: options.connections,
    overallRate: options.ratePerSecond,
    duration: seconds,
    timeout: clientTimeoutSeconds,
    requests: [
      {
        method: "POST",
        path,
        headers: { "content-type": "application/json" },
        setupRequest: (request, context: MarkedContext) => {
          const data = nextData(surface === "webhook" ? "w" : "f");
          context.marker = data.marker;
          context.sentAt = Date.now();
          return { ...request, body: JSON.stringify(data) };
        },
        onResponse: (status, _body, context: MarkedContext, headers) => {
          if (context.marker === undefined || context.sentAt === undefined) return;
          const retryAfter = Object.keys(headers ?? {}).some((name) => name.toLowerCase() === "retry-after");
          record.answers.push({
            surface,
            marker: context.marker,
            status,
            retryAfter,
            sentAt: context.sentAt,
            answeredAt: Date.now(),
          });
          if (status >= 200 && status < 300) record.acknowledged.set(context.marker, surface);
        },
      },
    ],
  });
  const result = await instance;
  record.unanswered += result.errors - result.timeouts;
  record.timedOut += result.timeouts;
}

/**
 * `workflows.run` callers, each with an idempotency key per call: a call that times out, is refused
 * by a dead process or answers 5xx is sent again with the same key, to the next platform, until it
 * is answered 2xx (or a client error) or `giveUpMs` passes. Starts calls while `keepGoing()` says so.
 */
export async function driveApiCalls(options: {
  baseUrls: () => string[];
  projectId: string;
  token: string;
  callers: number;
  pauseMs: number;
  keepGoing: () => boolean;
  giveUpMs: number;
  record: LoadRecord;
}): Promise<void> {
  const { record } = options;
  const call = async (data: { marker: string; steps: number }) => {
    const firstSentAt = Date.now();
    for (let attempt = 0; Date.now() - firstSentAt < options.giveUpMs; attempt += 1) {
      if (attempt > 0) record.apiRetries += 1;
      const urls = options.baseUrls();
      const url = urls[attempt % urls.length];
      const sentAt = Date.now();
      try {
        const response = await fetch(`${url}/rpc/workflows/run`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${options.token}` },
          body: JSON.stringify({
            json: { projectId: options.projectId, workflow: faultWorkflow, input: data, idempotencyKey: data.marker },
          }),
          signal: AbortSignal.timeout(clientTimeoutSeconds * 1000),
        });
        const text = await response.text();
        record.answers.push({
          surface: "api",
          marker: data.marker,
          status: response.status,
          retryAfter: response.headers.has("retry-after"),
          sentAt,
          answeredAt: Date.now(),
        });
        if (response.ok) {
          const executionId = (JSON.parse(text) as { json: { executionId: string } }).json.executionId;
          record.acknowledged.set(data.marker, "api");
          const ids = record.apiExecutionIds.get(data.marker) ?? new Set<string>();
          ids.add(executionId);
          record.apiExecutionIds.set(data.marker, ids);
          return;
        }
        if (response.status < 500) return;
      } catch (error) {
        if (error instanceof DOMException && error.name === "TimeoutError") record.timedOut += 1;
        else record.unanswered += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  await Promise.all(
    Array.from({ length: options.callers }, async () => {
      while (options.keepGoing()) {
        await call(nextData("a"));
        await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
      }
    }),
  );
}
