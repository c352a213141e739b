import {
  bundleConfig,
  callRpc,
  createTestIdentity,
  openEventStream,
  revokeTestCredential,
  signedInTestPlatform,
} from "@weft/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { accessRecheckMs } from "../src/rpc/event-stream-route.ts";

const signedIn = signedInTestPlatform("events@example.com", {
  configure: (parsed) => ({ ...parsed, worker: { ...parsed.worker, pollIntervalMs: 25 } }),
});
let projectId: string;

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({
      name: "signup",
      retries: { maxAttempts: 2, minDelay: "1s", maxDelay: "1s" },
      async run(input: { n: number }, ctx) {
        ctx.log.info("account created", { n: input.n });
        const doubled = await ctx.step("double", async () => {
          ctx.log.info("doubling");
          return input.n * 2;
        });
        await ctx.sleep("nap", "1h");
        await ctx.step("flaky", async () => {
          if (ctx.execution.attempt < 2) throw new Error("transient trouble");
        });
        ctx.log.warn("welcome sent");
        return { doubled };
      },
    }),
  ],
});
`;

const manifest = {
  version: 1,
  workflows: [{ name: "signup", retries: { maxAttempts: 2, minDelayMs: 1000, maxDelayMs: 1000 } }],
};

interface EventJson {
  id: string;
  kind: string;
  message: string;
  attempt: number | null;
  step: string | null;
  status: string | null;
  executionId: string;
}
interface EventsPage {
  data: EventJson[];
  nextCursor: string;
}

async function waitForStatus(executionId: string, status: string, attempt?: number): Promise<void> {
  for (;;) {
    const { json } = await signedIn.call<{ status: string; attempt: number }>("workflows.getExecution", {
      executionId,
    });
    if (json.status === status && (attempt === undefined || json.attempt === attempt)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Runs `signup` to success through its sleep and its retry, moving the manual clock past each wait. */
async function runSignup(n: number): Promise<string> {
  const { json } = await signedIn.call<{ executionId: string }>("workflows.run", {
    projectId,
    workflow: "signup",
    input: { n },
  });
  const executionId = json.executionId;
  await waitForStatus(executionId, "sleeping");
  signedIn.weft.clock.advance(3_600_000);
  await waitForStatus(executionId, "queued", 2);
  signedIn.weft.clock.advance(1_000);
  await waitForStatus(executionId, "succeeded");
  signedIn.weft.clock.advance(1_000);
  return executionId;
}

beforeAll(async () => {
  projectId = (await signedIn.call<{ id: string }>("projects.create", { name: "Events" })).json.id;
  await signedIn.call("deployments.create", { projectId, manifest, bundle: await bundleConfig(source) });
});

describe("workflows.listEvents", () => {
  it("lists logs, steps, sleeps, attempts and the end in the order they were recorded, each log once", async () => {
    const executionId = await runSignup(21);
    const { status, json } = await signedIn.call<EventsPage>("workflows.listEvents", { executionId });
    expect(status).toBe(200);
    expect(json.data.map((event) => `${event.kind}: ${event.message}`)).toEqual([
      "queued: queued",
      "attempt.started: attempt 1 started",
      "step.started: step double started",
      "log: doubling",
      "step.ended: step double done",
      "sleep: sleep nap until 2026-01-01T01:00:00.000Z",
      "log: account created",
      "attempt.ended: attempt 1 sleeping (nap)",
      "attempt.started: attempt 1 resumed",
      "step.started: step flaky started",
      "step.ended: step flaky failed: transient trouble",
      "attempt.ended: attempt 1 failed: transient trouble",
      "attempt.started: attempt 2 started",
      "step.started: step flaky started",
      "step.ended: step flaky done",
      "log: welcome sent",
      "attempt.ended: attempt 2 ended",
      "execution.ended: succeeded",
    ]);
    expect(json.data.filter((event) => event.message === "account created")).toHaveLength(1);
  });

  it("pages with a cursor, and the project's stream holds the same events", async () => {
    const executionId = await runSignup(2);
    const whole = (await signedIn.call<EventsPage>("workflows.listEvents", { executionId })).json.data;
    const walked: EventJson[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = (await signedIn.call<EventsPage>("workflows.listEvents", { executionId, limit: 4, cursor })).json;
      walked.push(...page.data);
      cursor = page.nextCursor;
      if (page.data.length < 4) break;
    }
    expect(walked.map((event) => event.id)).toEqual(whole.map((event) => event.id));
    // Caught up: an empty page, and the cursor to resume from stays where it was.
    const again = (await signedIn.call<EventsPage>("workflows.listEvents", { executionId, cursor })).json;
    expect(again).toEqual({ data: [], nextCursor: cursor });
    // An event's id resumes after it, as a cursor does.
    const afterThird = (await signedIn.call<EventsPage>("workflows.listEvents", { executionId, cursor: whole[2]?.id }))
      .json;
    expect(afterThird.data.map((event) => event.id)).toEqual(whole.slice(3).map((event) => event.id));

    const project = (await signedIn.call<EventsPage>("workflows.listEvents", { projectId, limit: 500 })).json.data;
    expect(project.filter((event) => event.executionId === executionId).map((event) => event.id)).toEqual(
      whole.map((event) => event.id),
    );
  });

  it("refuses a forged cursor, neither or both of executionId and projectId, and a limit over 500", async () => {
    const executionId = (await signedIn.call<{ results: { id: string }[] }>("workflows.listExecutions", { projectId }))
      .json.results[0]?.id;
    for (const input of [
      { executionId, cursor: "not-a-cursor" },
      { executionId, cursor: Buffer.from("2026-01-01T00:00:00.000Z|prj_x|1").toString("base64url") },
      { executionId, after: "a field the list does not take" },
      {},
      { executionId, projectId },
      { projectId, limit: 501 },
    ]) {
      const refused = await signedIn.call("workflows.listEvents", input);
      expect(refused.status, JSON.stringify(input)).toBe(400);
    }
    const unknown = await signedIn.call("workflows.listEvents", { executionId: "exe_00000000000000000000000000" });
    expect(unknown.status).toBe(404);
  });
});

describe("GET /api/events", () => {
  it("answers 401 with a bearer challenge without a credential, and 404 for a project one cannot see", async () => {
    const missing = await openEventStream(signedIn.weft.url, { projectId });
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toContain("Bearer resource_metadata=");
    const wrong = await openEventStream(signedIn.weft.url, { projectId, token: "weft_not_a_real_credential" });
    expect(wrong.status).toBe(401);
    const stranger = await createTestIdentity(signedIn.weft, "stranger@example.com");
    const foreign = await openEventStream(signedIn.weft.url, { projectId, token: stranger.credential });
    expect(foreign.status).toBe(404);
    const forged = await openEventStream(signedIn.weft.url, {
      projectId,
      token: signedIn.identity.credential,
      lastEventId: "forged",
    });
    expect(forged.status).toBe(400);
  });

  it("ends a stream whose credential is revoked at its next access check, and refuses the reconnection", async () => {
    const reader = await createTestIdentity(signedIn.weft, "stream-reader@example.com");
    const created = await callRpc(
      signedIn.weft.url,
      "projects.create",
      { name: "Read by a stream" },
      { token: reader.credential },
    );
    const readerProject = (created.json as { id: string }).id;
    const stream = await openEventStream(signedIn.weft.url, { projectId: readerProject, token: reader.credential });
    expect(stream.status).toBe(200);
    await revokeTestCredential(signedIn.weft, reader.credentialId, { announce: true });
    signedIn.weft.clock.advance(accessRecheckMs);
    const ended = await stream.next();
    stream.close();
    expect(ended.event).toBe("access-ended");
    expect(JSON.parse(ended.data)).toMatchObject({ error: "forbidden" });
    const again = await openEventStream(signedIn.weft.url, { projectId: readerProject, token: reader.credential });
    expect(again.status).toBe(401);
  });

  it("streams a project's events as they are recorded and resumes after Last-Event-ID", async () => {
    const stream = await openEventStream(signedIn.weft.url, { projectId, token: signedIn.identity.credential });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    const executionId = await runSignup(5);
    const received: EventJson[] = [];
    for (;;) {
      const message = await stream.next();
      const event = JSON.parse(message.data) as EventJson;
      expect(message.id).toBe(event.id);
      received.push(event);
      if (event.kind === "execution.ended" && event.executionId === executionId) break;
    }
    stream.close();
    const listed = (await signedIn.call<EventsPage>("workflows.listEvents", { executionId })).json.data;
    expect(received.filter((event) => event.executionId === executionId).map((event) => event.id)).toEqual(
      listed.map((event) => event.id),
    );

    const middle = listed[5];
    if (middle === undefined) throw new Error("too few events");
    const resumed = await openEventStream(signedIn.weft.url, {
      projectId,
      token: signedIn.identity.credential,
      lastEventId: middle.id,
    });
    const next = JSON.parse((await resumed.next()).data) as EventJson;
    resumed.close();
    expect(next.id).toBe(listed[6]?.id);
  });
});
