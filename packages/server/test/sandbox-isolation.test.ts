import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { defaultEgressLimits } from "../src/engine/egress/egress-limits.ts";
import type { SandboxConfig } from "../src/engine/sandbox/sandbox-config.ts";
import { resolveSandboxIsolation } from "../src/engine/sandbox/sandbox-isolation.ts";

const empty = mkdtempSync(join(tmpdir(), "weft-no-bwrap-"));
/** A bwrap that fails as it does in a container without unprivileged user namespaces. */
const broken = mkdtempSync(join(tmpdir(), "weft-broken-bwrap-"));
writeFileSync(join(broken, "bwrap"), "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n");
chmodSync(join(broken, "bwrap"), 0o755);

afterAll(() => {
  rmSync(empty, { recursive: true, force: true });
  rmSync(broken, { recursive: true, force: true });
});

const config = (mode: SandboxConfig["mode"]): SandboxConfig => ({
  mode,
  egress: "public",
  egressAllow: [{ kind: "hostPort", host: "db.internal", port: 5432 }],
  egressLimits: defaultEgressLimits,
  cgroups: "auto",
});

describe("resolveSandboxIsolation", () => {
  it("takes WEFT_SANDBOX=process at its word, without probing: plain processes on the host network", async () => {
    expect(await resolveSandboxIsolation(config("process"), { searchPath: empty })).toEqual({
      kind: "isolated",
      isolation: {
        mode: "process",
        egress: "all",
        egressAllow: [{ kind: "hostPort", host: "db.internal", port: 5432 }],
        bwrapPath: "",
      },
    });
  });

  it("refuses WEFT_SANDBOX=bwrap without a bwrap on the PATH, naming the fix", async () => {
    expect(await resolveSandboxIsolation(config("bwrap"), { searchPath: empty })).toEqual({
      kind: "refused",
      message:
        "WEFT_SANDBOX=bwrap but bubblewrap does not work here (no bwrap executable on the PATH): install it (apt-get install bubblewrap) or set WEFT_SANDBOX=auto",
    });
  });

  it("refuses WEFT_SANDBOX=bwrap when bwrap exists but cannot run Node, quoting its error and naming the container's fix", async () => {
    const resolution = await resolveSandboxIsolation(config("bwrap"), { searchPath: broken });
    expect(resolution.kind).toBe("refused");
    if (resolution.kind !== "refused") return;
    expect(resolution.message).toContain(`${join(broken, "bwrap")} did not run Node (exit code 1)`);
    expect(resolution.message).toContain("bwrap: setting up uid map: Permission denied");
    expect(resolution.message).not.toContain("\n");
    // Installed already: the fix is the container's flags, or running NOT isolated on purpose.
    expect(resolution.message).not.toContain("apt-get install");
    expect(resolution.message).toContain(
      "Docker or Podman: --security-opt seccomp=seccomp-weft.json --security-opt systempaths=unconfined",
    );
    expect(resolution.message).toContain('"Self-hosting"');
    expect(resolution.message).toMatch(/or set WEFT_SANDBOX=process to run workflow code NOT isolated$/);
  });

  it("falls back under auto with a warning of several lines that says why and how to fix it", async () => {
    const resolution = await resolveSandboxIsolation(config("auto"), { searchPath: broken });
    expect(resolution.kind).toBe("fallback");
    if (resolution.kind !== "fallback") return;
    expect(resolution.isolation).toMatchObject({ mode: "process", egress: "all" });
    const lines = resolution.warning.split("\n");
    expect(lines.length).toBeGreaterThan(5);
    expect(resolution.warning).toContain("workflow code is NOT isolated");
    expect(resolution.warning).toContain("setting up uid map: Permission denied");
    expect(resolution.warning).toContain("Do not run untrusted tenants");
    expect(resolution.warning).toContain("apt-get install bubblewrap");
  });
});
