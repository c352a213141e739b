import { RpcError } from "@weft/client";
import { describe, expect, it } from "vitest";
import { describeFailure } from "../src/describe-failure.ts";

const context = { apiUrl: "http://127.0.0.1:3000" };

describe("the fix line of a quota refusal", () => {
  it("names the date a monthly quota resets, not 'wait a little'", () => {
    const refused = new RpcError("TOO_MANY_REQUESTS", {
      message:
        'The workspace\'s plan "free" allows 1000 executions a month (quota executionsPerMonth) and 1000 are used.',
      data: { quota: { name: "executionsPerMonth", limit: 1000, used: 1000, resetsAt: "2026-12-01T00:00:00.000Z" } },
    });
    const failure = describeFailure(refused, context);
    expect(failure.fix).toBe(
      "wait until the quota resets on 2026-12-01 at 00:00 UTC, or the operator moves the workspace to a larger plan with `weft server set-plan <workspace> <plan>`",
    );
  });

  it("tells an owner at the project quota to delete a project or change plans, not to ask an owner", () => {
    const refused = new RpcError("FORBIDDEN", {
      message: 'The workspace\'s plan "free" allows 3 projects (quota projects) and 3 are used.',
      data: { quota: { name: "projects", limit: 3, used: 3, resetsAt: null } },
    });
    const failure = describeFailure(refused, context);
    expect(failure.fix).toContain("delete a project you no longer need");
    expect(failure.fix).not.toContain("ask an owner");
  });

  it("keeps the general fix for a refusal that names no quota", () => {
    const refused = new RpcError("TOO_MANY_REQUESTS", { message: "Too many requests." });
    expect(describeFailure(refused, context).fix).toBe("wait a little and try again");
  });
});

describe("the fix line of a refusal that says when to retry", () => {
  it.each([
    [
      "SERVICE_UNAVAILABLE",
      "The platform is saturated: an execution queued now would wait more than 5 s for a worker.",
    ],
    [
      "TOO_MANY_REQUESTS",
      "This workspace's queue is backlogged: an execution queued in it now would wait more than 5 s for a worker.",
    ],
  ])("turns %s's data.retryAfterSeconds into the seconds to wait, after the server's message", (code, message) => {
    const failure = describeFailure(new RpcError(code, { message, data: { retryAfterSeconds: 5 } }), context);
    expect(failure.message).toBe(message);
    expect(failure.fix).toBe("wait 5 seconds and try again");
    expect(failure.code).toBe(code.toLowerCase());
  });
});
