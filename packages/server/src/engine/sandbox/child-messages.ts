import { type ParentMessage, parseChildMessage, type SerializedError } from "./protocol.ts";
import { protocolError, type ReadySettlement, type Sandbox } from "./sandbox-child.ts";

/** What routing a child's messages does to the child and its executions. */
export interface MessageRouting {
  send(sandbox: Sandbox, message: ParentMessage): void;
  /** An execution leaves its child. */
  release(sandbox: Sandbox, executionId: string): void;
  /** The child sent what cannot be attributed to one execution. */
  misconduct(sandbox: Sandbox, error: SerializedError): void;
}

/** Hands one message of a child to the execution it names; what cannot be attributed ends the child. */
export function routeChildMessage(
  routing: MessageRouting,
  sandbox: Sandbox,
  raw: unknown,
  ready: ReadySettlement | undefined,
) {
  const { send, release } = routing;
  const parsed = parseChildMessage(raw);
  if (!parsed.ok) {
    const error = protocolError(`the workflow process sent a malformed message (${parsed.problem})`);
    const handlers = parsed.executionId === undefined ? undefined : sandbox.running.get(parsed.executionId);
    if (handlers === undefined || parsed.executionId === undefined) return routing.misconduct(sandbox, error);
    release(sandbox, parsed.executionId);
    send(sandbox, { type: "abandon", executionId: parsed.executionId });
    return handlers.malformed(error);
  }
  const message = parsed.message;
  if (message.type === "ready") return ready?.resolve();
  if (message.type === "loadFailed") {
    const error = new Error(`the deployment's bundle could not be loaded: ${message.error.message}`);
    error.stack = message.error.stack;
    return ready?.reject(error);
  }
  const handlers = sandbox.running.get(message.executionId);
  if (handlers === undefined) return;
  if (message.type === "step") {
    handlers.step(message).then(
      (answer) =>
        send(sandbox, {
          type: "stepStored",
          executionId: message.executionId,
          sequence: message.sequence,
          ...answer,
        }),
      () =>
        send(sandbox, {
          type: "stepStored",
          executionId: message.executionId,
          sequence: message.sequence,
          stop: "abandoned",
        }),
    );
    return;
  }
  if (message.type === "token") {
    const address = { type: "tokenAnswer", executionId: message.executionId, sequence: message.sequence } as const;
    handlers.token(message).then(
      (answer) => {
        if (answer.stop === "waiting") release(sandbox, message.executionId);
        send(sandbox, { ...address, ...answer });
      },
      () => send(sandbox, { ...address, stop: "abandoned" }),
    );
    return;
  }
  if (message.type === "eventWait") {
    const address = { type: "tokenAnswer", executionId: message.executionId, sequence: message.sequence } as const;
    handlers.eventWait(message).then(
      (answer) => {
        if (answer.stop === "waiting") release(sandbox, message.executionId);
        send(sandbox, { ...address, ...answer });
      },
      () => send(sandbox, { ...address, stop: "abandoned" }),
    );
    return;
  }
  if (message.type === "sendEvent") {
    const address = { type: "eventSent", executionId: message.executionId, sequence: message.sequence } as const;
    handlers.sendEvent(message).then(
      (answer) => send(sandbox, { ...address, ...answer }),
      () => send(sandbox, { ...address, stop: "abandoned" }),
    );
    return;
  }
  if (message.type === "startChild" || message.type === "startChildren") {
    const address = { type: "childStarted", executionId: message.executionId, sequence: message.sequence } as const;
    (message.type === "startChild" ? handlers.startChild(message) : handlers.startChildren(message)).then(
      (answer) => send(sandbox, { ...address, ...answer }),
      () => send(sandbox, { ...address, stop: "abandoned" }),
    );
    return;
  }
  release(sandbox, message.executionId);
  if (message.type === "sleep") handlers.sleep(message);
  else handlers.finished(message);
}
