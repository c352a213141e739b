import { randomUUID } from "node:crypto";
import type { CallTarget } from "./contract-calls.ts";
import { randomTokenId } from "./test-wait-tokens.ts";

/** Ids of the right shape that name nothing, in a target whose accounts are `accounts`. */
export function missingCallTarget(accounts: Pick<CallTarget, "ownerAccountId" | "callerAccountId">): CallTarget {
  const suffix = () => randomUUID().replaceAll("-", "").slice(0, 26);
  return {
    ...accounts,
    workspaceId: `wsp_${suffix()}`,
    projectId: `prj_${suffix()}`,
    deploymentId: `dep_${suffix()}`,
    executionId: `exe_${suffix()}`,
    traceId: randomUUID().replaceAll("-", ""),
    invitationId: `inv_${suffix()}`,
    agentId: `reg_${suffix()}`,
    tokenId: randomTokenId(),
    policyId: `fed_${suffix()}`,
  };
}

/** An account id of the right shape that names nobody. */
export function missingAccountId(): string {
  return `acc_${randomUUID().replaceAll("-", "").slice(0, 26)}`;
}
