import { describe, expect, it } from "vitest";
import { expiryWarning } from "../src/commands/whoami.ts";

const now = new Date("2026-03-01T12:00:00.000Z");
const later = (ms: number) => new Date(now.getTime() + ms);
const hour = 3_600_000;

describe("the credential expiry warning of weft whoami", () => {
  it("says nothing while 3 days or more are left", () => {
    expect(expiryWarning(later(30 * 24 * hour), now)).toBeUndefined();
    expect(expiryWarning(later(72 * hour), now)).toBeUndefined();
  });

  it("warns within 3 days, saying when and what to do", () => {
    expect(expiryWarning(later(72 * hour - 1), now)).toBe(
      "your credential expires in 2 days: run `weft login` to get a new one",
    );
    expect(expiryWarning(later(5 * hour), now)).toBe(
      "your credential expires in 5 hours: run `weft login` to get a new one",
    );
    expect(expiryWarning(later(10 * 60_000), now)).toMatch(/within the hour/);
  });

  it("says when it has expired", () => {
    expect(expiryWarning(now, now)).toBe("your credential has expired: run `weft login`");
  });
});
