const MiB = 1024 * 1024;

/** What one sandbox child may hold and move through the egress proxy (WEFT_EGRESS_CONNECTIONS, WEFT_EGRESS_MB_PER_EXECUTION). */
export interface SandboxEgressLimits {
  /** Connections one child may hold open to the proxy at once. */
  connectionsPerChild: number;
  /** Bytes, both ways, each execution adds to its child's allowance (see `EgressByteBudget`). */
  bytesPerExecution: number;
}

/** What one sandbox child may hold and move through the proxy, and what the proxy may hold for all of them. */
export interface EgressLimits extends SandboxEgressLimits {
  /** File descriptors the proxy may hold for every child together (`egressFdShare`). */
  fdShare: number;
}

/**
 * 64 connections cover a workflow that fans out to a few dozen APIs at once, with keep-alive
 * connections to spare, while 64 per child times the children of a worker stays far below the
 * proxy's share of descriptors. 64 MiB an execution covers API calls and ordinary downloads; a
 * workflow that moves more is an operator's decision, not a tenant's.
 */
export const defaultEgressLimits: SandboxEgressLimits = { connectionsPerChild: 64, bytesPerExecution: 64 * MiB };

export const bytesPerMiB = MiB;
