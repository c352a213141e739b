import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createManualClock } from "../src/shared/clock.ts";
import { createExpiringMap } from "../src/shared/expiring-map.ts";
import { createIdGenerator, isIdOfKind } from "../src/shared/ids.ts";
import { createLogger } from "../src/shared/logger.ts";
import { createIdRandomness } from "../src/shared/random-pool.ts";
import { generateToken, hashSecret, secretMatchesHash, secretsEqual } from "../src/shared/secrets.ts";

describe("manual clock", () => {
  it("moves only when told", () => {
    const clock = createManualClock(new Date("2026-05-01T00:00:00Z"));
    expect(clock.now().toISOString()).toBe("2026-05-01T00:00:00.000Z");
    clock.advance(90_000);
    expect(clock.now().toISOString()).toBe("2026-05-01T00:01:30.000Z");
    clock.set(new Date("2027-01-01T00:00:00Z"));
    expect(clock.now().getUTCFullYear()).toBe(2027);
  });
});

describe("ids", () => {
  it("carry their kind's prefix and sort by creation time, also within one millisecond", () => {
    const clock = createManualClock();
    const nextId = createIdGenerator(clock);
    const sameMillisecond = [nextId("project"), nextId("project"), nextId("project")];
    clock.advance(1);
    const later = nextId("project");
    const all = [...sameMillisecond, later];
    expect([...all].sort()).toEqual(all);
    expect(new Set(all).size).toBe(4);
    for (const id of all) expect(isIdOfKind(id, "project")).toBe(true);
    expect(isIdOfKind(nextId("execution"), "project")).toBe(false);
    expect(nextId("deployment")).toMatch(/^dep_[0-9a-z]{26}$/);
  });

  it("follow the injected clock", () => {
    const early = createIdGenerator(createManualClock(new Date("2026-01-01T00:00:00Z")))("execution");
    const late = createIdGenerator(createManualClock(new Date("2026-06-01T00:00:00Z")))("execution");
    expect(early < late).toBe(true);
  });
});

describe("randomness for ids", () => {
  it("hands out fresh bytes, refilling its block when a draw would run past it", () => {
    const randomness = createIdRandomness(8);
    const draws = Array.from({ length: 200 }, () => randomness.hex(5));
    for (const draw of draws) expect(draw).toMatch(/^[0-9a-f]{10}$/);
    // 40 random bits each: a repeat among 200 draws would mean bytes were handed out twice.
    expect(new Set(draws).size).toBe(draws.length);
  });

  it("gives fractions in [0, 1) in steps of 1/256", () => {
    const randomness = createIdRandomness(16);
    const fractions = Array.from({ length: 1000 }, () => randomness.unitFraction());
    for (const fraction of fractions) {
      expect(fraction).toBeGreaterThanOrEqual(0);
      expect(fraction).toBeLessThan(1);
      expect(Number.isInteger(fraction * 256)).toBe(true);
    }
    expect(new Set(fractions).size).toBeGreaterThan(100);
  });
});

describe("secrets", () => {
  it("hash with SHA-256 and compare presented secrets to stored hashes", () => {
    const token = generateToken("weft");
    expect(token).toMatch(/^weft_[A-Za-z0-9_-]{43}$/);
    const stored = hashSecret(token);
    expect(stored).toMatch(/^[0-9a-f]{64}$/);
    expect(secretMatchesHash(token, stored)).toBe(true);
    expect(secretMatchesHash(`${token}x`, stored)).toBe(false);
    expect(secretMatchesHash(token, "not-hex")).toBe(false);
  });

  it("compare two secrets of any lengths", () => {
    expect(secretsEqual("abc", "abc")).toBe(true);
    expect(secretsEqual("abc", "abd")).toBe(false);
    expect(secretsEqual("abc", "abcdef")).toBe(false);
  });

  it("makes tokens that do not repeat", () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => generateToken("clm")));
    expect(tokens.size).toBe(1000);
  });
});

describe("logger", () => {
  it("never writes secrets, wherever they sit in a logged object", () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ level: "info", destination: sink }).child({ requestId: "req_1" });
    logger.info(
      {
        credential: "weft_secret1",
        body: { claim_token: "clm_secret2", otp: "123456" },
        req: { headers: { authorization: "Bearer weft_secret3" } },
      },
      "registration",
    );
    const output = lines.join("");
    expect(output).toContain('"requestId":"req_1"');
    for (const secret of ["weft_secret1", "clm_secret2", "123456", "weft_secret3"]) {
      expect(output).not.toContain(secret);
    }
  });
});

describe("expiring map", () => {
  it("answers an entry until it expires and makes room by dropping the one written longest ago", () => {
    const map = createExpiringMap<string, number>(2);
    map.set("a", 1, 1000);
    map.set("b", 2, 1000);
    expect(map.get("a", 999)).toBe(1);
    expect(map.get("a", 1000)).toBeUndefined();
    map.set("a", 1, 2000);
    map.set("c", 3, 2000);
    expect(map.get("b", 0)).toBeUndefined();
    expect([map.get("a", 0), map.get("c", 0)]).toEqual([1, 3]);
    map.deleteWhere((value) => value === 3);
    map.delete("a");
    expect([map.get("a", 0), map.get("c", 0)]).toEqual([undefined, undefined]);
  });
});
