import { describe, expect, it } from "vitest";
import { whatClaimLeft } from "../src/engine/claim-loop.ts";
import { announcedAccounts, announcedProjects, createClaimableAccounts } from "../src/engine/claimable-accounts.ts";
import { limitedGroupsPerClaim } from "../src/engine/execution-state/index.ts";

const atShare = (...full: string[]): ReadonlySet<string> => new Set(full);

describe("which accounts' workspaces may hold claimable executions", () => {
  it("holds every claim worth making until a claim stops short", () => {
    const claimable = createClaimableAccounts();
    expect(claimable.worthClaiming(atShare("acc_a"))).toBe(true);
    claimable.announced(["acc_a"]);
    expect(claimable.worthClaiming(atShare("acc_a"))).toBe(true);
  });

  it("after a claim stopped short, claims only for an account then at its share or announced since, once below its share", () => {
    const claimable = createClaimableAccounts();
    claimable.claiming();
    claimable.leftNone(["acc_a", "acc_a"]);
    expect(claimable.worthClaiming(atShare("acc_a"))).toBe(false);
    expect(claimable.worthClaiming(atShare())).toBe(true);
    claimable.announced(["acc_b"]);
    expect(claimable.worthClaiming(atShare("acc_a"))).toBe(true);
    expect(claimable.worthClaiming(atShare("acc_a", "acc_b"))).toBe(false);
  });

  it("knows nothing again after a poll or an announcement that names no account", () => {
    const claimable = createClaimableAccounts();
    claimable.claiming();
    claimable.leftNone([]);
    expect(claimable.worthClaiming(atShare())).toBe(false);
    claimable.announced(undefined);
    expect(claimable.worthClaiming(atShare())).toBe(true);
    claimable.claiming();
    claimable.leftNone([]);
    claimable.forget();
    expect(claimable.worthClaiming(atShare())).toBe(true);
  });

  it("keeps what is announced or forgotten while a claim runs, whatever that claim finds", () => {
    const claimable = createClaimableAccounts();
    claimable.claiming();
    claimable.announced(["acc_b"]);
    claimable.leftNone(["acc_a"]);
    expect(claimable.worthClaiming(atShare("acc_a"))).toBe(true);
    expect(claimable.worthClaiming(atShare("acc_a", "acc_b"))).toBe(false);

    claimable.claiming();
    claimable.forget();
    claimable.leftNone(["acc_a"]);
    expect(claimable.worthClaiming(atShare("acc_a"))).toBe(true);

    claimable.claiming();
    claimable.announced(undefined);
    claimable.leftNone(["acc_a"]);
    expect(claimable.worthClaiming(atShare("acc_a"))).toBe(true);

    // What was announced before the claim began, the claim has seen.
    claimable.announced(["acc_c"]);
    claimable.claiming();
    claimable.leftNone(["acc_a"]);
    expect(claimable.worthClaiming(atShare("acc_a"))).toBe(false);
  });

  it("names each project of a batch once, and none past a hundred, so that the payload stays under 8 000 bytes", () => {
    expect(announcedProjects(["prj_a", "prj_b", "prj_a"])).toBe("prj_a,prj_b");
    const hundred = Array.from({ length: 100 }, (_, n) => `prj_01jannounced${String(n).padStart(14, "0")}`);
    expect(announcedProjects(hundred).split(",")).toHaveLength(100);
    expect(announcedProjects([...hundred, "prj_one_more"])).toBe("");
  });

  it("reads an announcement's payload as account ids, an empty one as unsaid", () => {
    expect(announcedAccounts("acc_a,acc_b")).toEqual(["acc_a", "acc_b"]);
    expect(announcedAccounts("")).toBeUndefined();
  });
});

describe("what a claim's answer tells of the executions it left behind", () => {
  const at = { free: 4, running: 0, slotsPerAccount: 10 };

  it("a claim that took all it asked for may have left more", () => {
    expect(whatClaimLeft(4, 0, at)).toEqual({ heldBack: false, stoppedShort: false, leftNone: false });
  });

  it("a claim that took fewer, with no share or group limit in reach, left nothing", () => {
    expect(whatClaimLeft(1, 0, at)).toEqual({ heldBack: false, stoppedShort: true, leftNone: true });
    expect(whatClaimLeft(0, 0, at)).toEqual({ heldBack: false, stoppedShort: true, leftNone: true });
  });

  it("a claim that may have met an account's share, or skipped limited groups, held executions back", () => {
    expect(whatClaimLeft(1, 0, { ...at, running: 9 })).toEqual({
      heldBack: true,
      stoppedShort: false,
      leftNone: false,
    });
    expect(whatClaimLeft(1, 2, at)).toEqual({ heldBack: true, stoppedShort: true, leftNone: false });
    expect(whatClaimLeft(1, limitedGroupsPerClaim, at).stoppedShort).toBe(false);
  });
});
