import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "../../shared/logger.ts";
import type { Timers } from "../../shared/timers.ts";
import { formatLimit } from "../limits.ts";
import { createEgressPolicy, type EgressAllowEntry } from "./address-policy.ts";
import { defaultEgressLimits, type SandboxEgressLimits } from "./egress-limits.ts";
import { type EgressChild, startEgressProxy } from "./egress-proxy.ts";
import { raiseOpenFileLimit } from "./open-file-limit.ts";
import { egressFdShare } from "./open-file-share.ts";
import type { ResolveHost } from "./resolve-host.ts";

export interface SandboxEgressOptions {
  allow: readonly EgressAllowEntry[];
  /** The operator's limits per child; the defaults when unset. */
  limits?: SandboxEgressLimits | undefined;
  resolveHost: ResolveHost;
  logger: Logger;
  timers: Timers;
}

/** The egress proxy of a worker's sandboxes, in a directory of its own. */
export interface SandboxEgress {
  openChild(childKey: string): EgressChild;
  close(): Promise<void>;
}

/**
 * Starts the egress proxy for `public` egress. The process's soft open-file limit is raised to the
 * hard one first, and the proxy gets its share of it for all children together; the figures are
 * logged once, so an operator sees what a tenant can hold.
 */
export async function startSandboxEgress(options: SandboxEgressOptions): Promise<SandboxEgress> {
  const { logger } = options;
  const limits = options.limits ?? defaultEgressLimits;
  const fileLimits = await raiseOpenFileLimit(logger);
  const fdShare = egressFdShare(fileLimits?.soft ?? Number.POSITIVE_INFINITY);
  logger.info(
    {
      openFileSoftLimit: fileLimits?.soft,
      openFileHardLimit: fileLimits?.hard,
      egressFdShare: fdShare,
      connectionsPerSandbox: limits.connectionsPerChild,
      bytesPerExecution: formatLimit(limits.bytesPerExecution),
    },
    "egress proxy limits",
  );
  // Private (mode 0700) and short: Unix socket paths allow about 100 bytes.
  const directory = mkdtempSync(join(tmpdir(), "weft-egress-"));
  const proxy = startEgressProxy({
    directory,
    policy: createEgressPolicy(options.allow),
    resolveHost: options.resolveHost,
    logger,
    timers: options.timers,
    limits: { ...limits, fdShare },
  });
  return {
    openChild: (childKey) => proxy.openChild(childKey),
    close: async () => {
      await proxy.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
