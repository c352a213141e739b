import { describe, expect, it } from "vitest";
import { createEgressPolicy, nonPublicRangeOf, sandboxEgressRefusal } from "../src/engine/egress/address-policy.ts";

describe("nonPublicRangeOf", () => {
  it.each([
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.127.255.254", "carrier-grade NAT"],
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["169.254.169.254", "link-local"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.0.0.8", "IETF protocol assignment"],
    ["192.0.2.10", "documentation"],
    ["192.88.99.1", "6to4 relay anycast"],
    ["192.168.1.1", "private"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.255", "benchmarking"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.7", "documentation"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "broadcast"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["::7f00:1", "IPv4-compatible"],
    ["64:ff9b::a00:1", "NAT64"],
    ["100::1", "discard-only"],
    ["2001::1", "Teredo"],
    ["2001:db8::1", "documentation"],
    ["2002:a00:1::", "6to4"],
    ["fc00::1", "unique-local"],
    ["fd12:3456::1", "unique-local"],
    ["fe80::1", "link-local"],
    ["febf::1", "link-local"],
    ["fec0::1", "site-local"],
    ["ff02::1", "multicast"],
    // IPv4-mapped IPv6 is judged by the IPv4 address it carries, in either notation.
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:169.254.169.254", "link-local"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:192.168.0.1", "private"],
    ["::ffff:100.64.0.1", "carrier-grade NAT"],
  ])("classes %s as %s", (address, kind) => {
    expect(nonPublicRangeOf(address)).toBe(kind);
  });

  it.each(["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "169.255.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])(
    "finds %s public",
    (address) => {
      expect(nonPublicRangeOf(address)).toBeUndefined();
    },
  );

  it("refuses to judge something that is not an IP address", () => {
    expect(() => nonPublicRangeOf("localhost")).toThrow(/not an IP address/);
  });
});

describe("createEgressPolicy", () => {
  it("lets public addresses through and refuses others with a reason naming the host, address and range", () => {
    const policy = createEgressPolicy([]);
    expect(policy.check({ host: "example.com", port: 443, address: "93.184.215.14" })).toEqual({ allowed: true });
    expect(policy.check({ host: "rebound.example", port: 80, address: "127.0.0.1" })).toEqual({
      allowed: false,
      kind: "loopback",
      reason: "rebound.example (127.0.0.1) is a loopback address, which workflow code may not reach",
    });
    expect(policy.check({ host: "169.254.169.254", port: 80, address: "169.254.169.254" })).toEqual({
      allowed: false,
      kind: "link-local",
      reason: "169.254.169.254 is a link-local address, which workflow code may not reach",
    });
  });

  it("phrases the egress proxy's refusal for workflow code: destination, kind of address and the settings", () => {
    expect(sandboxEgressRefusal({ host: "127.0.0.1", port: 3000, address: "127.0.0.1" }, "loopback")).toBe(
      "egress to 127.0.0.1:3000 refused: loopback addresses are not reachable from workflow code (WEFT_SANDBOX_EGRESS=public; see WEFT_SANDBOX_EGRESS_ALLOW)",
    );
    expect(sandboxEgressRefusal({ host: "db.internal", port: 5432, address: "10.0.0.5" }, "private")).toMatch(
      /^egress to db\.internal:5432 refused: db\.internal resolves to 10\.0\.0\.5, and private addresses are not reachable/,
    );
    expect(sandboxEgressRefusal({ host: "::1", port: 443, address: "::1" }, "loopback")).toMatch(
      /^egress to \[::1\]:443 refused: loopback addresses/,
    );
  });

  it("exempts what WEFT_SANDBOX_EGRESS_ALLOW names: a CIDR on any port, a host or address on its port only", () => {
    const policy = createEgressPolicy([
      { kind: "cidr", address: "10.1.0.0", prefix: 16, family: "ipv4" },
      { kind: "cidr", address: "fd00::", prefix: 8, family: "ipv6" },
      { kind: "hostPort", host: "db.internal", port: 8080 },
      { kind: "hostPort", host: "127.0.0.1", port: 5000 },
    ]);
    const allowed = (host: string, port: number, address: string) => policy.check({ host, port, address }).allowed;
    expect(allowed("svc", 1, "10.1.200.3")).toBe(true);
    expect(allowed("svc", 1, "::ffff:10.1.200.3")).toBe(true);
    expect(allowed("svc", 1, "10.2.0.1")).toBe(false);
    expect(allowed("svc", 1, "fd00::5")).toBe(true);
    expect(allowed("DB.internal", 8080, "10.9.9.9")).toBe(true);
    expect(allowed("db.internal", 8081, "10.9.9.9")).toBe(false);
    expect(allowed("127.0.0.1", 5000, "127.0.0.1")).toBe(true);
    expect(allowed("localhost", 5000, "127.0.0.1")).toBe(true);
    expect(allowed("127.0.0.1", 5432, "127.0.0.1")).toBe(false);
  });
});
