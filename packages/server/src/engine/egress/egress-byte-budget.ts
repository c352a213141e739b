/**
 * The bytes one sandbox child may move through the egress proxy. The child is the unit the proxy
 * can tell apart: every execution in it runs the same deployment's code in one process, which can
 * hand its sockets from one execution to another, so no count per execution could be enforced.
 * The budget is stated per execution all the same: each execution that starts in the child adds
 * one execution's bytes to its allowance, and when one ends, what is left unused is cut back to
 * one budget per execution still running. A child running k executions may then move about k
 * budgets at once, and bytes left over by finished executions do not pile up in a child kept warm.
 */
export interface EgressByteBudget {
  executionStarted(): void;
  executionEnded(): void;
  /** Counts bytes that went through, either way; false once they take the child past its allowance. */
  draw(bytes: number): boolean;
  /** Nothing is left of the allowance: new requests are refused. */
  usedUp(): boolean;
  usage(): { usedBytes: number; allowedBytes: number; executions: number };
}

export function createEgressByteBudget(bytesPerExecution: number): EgressByteBudget {
  let used = 0;
  let allowed = 0;
  let executions = 0;
  return {
    executionStarted: () => {
      executions += 1;
      allowed += bytesPerExecution;
    },
    executionEnded: () => {
      executions = Math.max(0, executions - 1);
      allowed = Math.min(allowed, used + bytesPerExecution * executions);
    },
    draw: (bytes) => {
      used += bytes;
      return used <= allowed;
    },
    usedUp: () => used >= allowed,
    usage: () => ({ usedBytes: used, allowedBytes: allowed, executions }),
  };
}
