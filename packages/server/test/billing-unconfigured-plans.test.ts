import { capturedLogger, createTestIdentity, startTestPlatform, type TestPlatform } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assignPlan } from "../src/billing/assign-plan.ts";
import { unlimitedPlan } from "../src/billing/plans.ts";
import { startPlatform } from "../src/platform.ts";
import { valueOrThrow } from "../src/shared/service-result.ts";

let weft: TestPlatform;

beforeAll(async () => {
  weft = await startTestPlatform({
    env: { WEFT_ROLES: "auth,api", WEFT_PLANS: JSON.stringify([{ name: "gold", executionsPerMonth: 1000 }]) },
  });
});
afterAll(async () => {
  await weft?.stop();
});

describe("a plan WEFT_PLANS no longer names", () => {
  it("is named at start-up, with the count of workspaces held to the default plan and the fix", async () => {
    for (const email of ["gold-1@plans.test", "gold-2@plans.test"]) {
      const identity = await createTestIdentity(weft, email);
      valueOrThrow(
        await assignPlan(weft.database.db, weft.platform.context.config.billing, {
          workspaceId: identity.personalWorkspaceId,
          plan: "gold",
        }),
      );
    }
    await createTestIdentity(weft, "default@plans.test");

    const withoutGold = { plans: [unlimitedPlan], defaultPlan: unlimitedPlan.name };
    const captured = capturedLogger("warn");
    const second = await startPlatform(
      { ...weft.platform.context.config, port: 0, billing: withoutGold },
      { clock: weft.clock, database: weft.database, logger: captured.logger },
    );
    await second.stop();
    expect(captured.lines.map((line) => line.msg)).toEqual([
      '2 workspaces are assigned a plan WEFT_PLANS does not name: "gold" (2). They are held to the default plan "unlimited" until you assign one with `weft server set-plan <workspaceId> <plan>` or name the plan in WEFT_PLANS again.',
    ]);

    const quiet = capturedLogger("warn");
    const third = await startPlatform(
      { ...weft.platform.context.config, port: 0 },
      { clock: weft.clock, database: weft.database, logger: quiet.logger },
    );
    await third.stop();
    expect(quiet.lines).toEqual([]);
  });
});
