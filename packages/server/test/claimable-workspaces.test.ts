import { describe, expect, it } from "vitest";
import {
  announcedProjects,
  announcedWorkspaces,
  createClaimableWorkspaces,
} from "../src/engine/claimable-workspaces.ts";

const atShare = (...full: string[]): ReadonlySet<string> => new Set(full);

describe("which workspaces may hold claimable executions", () => {
  it("holds every claim worth making until a claim stops short", () => {
    const claimable = createClaimableWorkspaces();
    expect(claimable.worthClaiming(atShare("wsp_a"))).toBe(true);
    claimable.announced(["wsp_a"]);
    expect(claimable.worthClaiming(atShare("wsp_a"))).toBe(true);
  });

  it("after a claim stopped short, claims only for a workspace then at its share or announced since, once below its share", () => {
    const claimable = createClaimableWorkspaces();
    claimable.claiming();
    claimable.leftNone(["wsp_a", "wsp_a"]);
    expect(claimable.worthClaiming(atShare("wsp_a"))).toBe(false);
    expect(claimable.worthClaiming(atShare())).toBe(true);
    claimable.announced(["wsp_b"]);
    expect(claimable.worthClaiming(atShare("wsp_a"))).toBe(true);
    expect(claimable.worthClaiming(atShare("wsp_a", "wsp_b"))).toBe(false);
  });

  it("knows nothing again after a poll or an announcement that names no workspace", () => {
    const claimable = createClaimableWorkspaces();
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
    const claimable = createClaimableWorkspaces();
    claimable.claiming();
    claimable.announced(["wsp_b"]);
    claimable.leftNone(["wsp_a"]);
    expect(claimable.worthClaiming(atShare("wsp_a"))).toBe(true);
    expect(claimable.worthClaiming(atShare("wsp_a", "wsp_b"))).toBe(false);

    claimable.claiming();
    claimable.forget();
    claimable.leftNone(["wsp_a"]);
    expect(claimable.worthClaiming(atShare("wsp_a"))).toBe(true);

    claimable.claiming();
    claimable.announced(undefined);
    claimable.leftNone(["wsp_a"]);
    expect(claimable.worthClaiming(atShare("wsp_a"))).toBe(true);

    // What was announced before the claim began, the claim has seen.
    claimable.announced(["wsp_c"]);
    claimable.claiming();
    claimable.leftNone(["wsp_a"]);
    expect(claimable.worthClaiming(atShare("wsp_a"))).toBe(false);
  });

  it("names each project of a batch once, and none past a hundred, so that the payload stays under 8 000 bytes", () => {
    expect(announcedProjects(["prj_a", "prj_b", "prj_a"])).toBe("prj_a,prj_b");
    const hundred = Array.from({ length: 100 }, (_, n) => `prj_01jannounced${String(n).padStart(14, "0")}`);
    expect(announcedProjects(hundred).split(",")).toHaveLength(100);
    expect(announcedProjects([...hundred, "prj_one_more"])).toBe("");
  });

  it("reads an announcement's payload as workspace ids, an empty one as unsaid", () => {
    expect(announcedWorkspaces("wsp_a,wsp_b")).toEqual(["wsp_a", "wsp_b"]);
    expect(announcedWorkspaces("")).toBeUndefined();
  });
});
