/**
 * What one execution may store and ask for. The sandbox child repeats these figures (it may import
 * nothing) to fail early with a good message; the worker enforces them again on every message,
 * since user code can forge any message the child sends.
 */

const KiB = 1024;
const MiB = 1024 * KiB;

/** Bytes of JSON text of one step result, of a workflow's output, and of an execution's input. */
export const maxStepResultBytes = 4 * MiB;
export const maxOutputBytes = 4 * MiB;
export const maxInputBytes = 4 * MiB;

/** Bytes of JSON text stored for one execution: step results, output and logs, over all attempts. */
export const maxStoredBytesPerExecution = 64 * MiB;

/** Bytes of one log line: its message plus the JSON text of its fields. */
export const maxLogLineBytes = 16 * KiB;

/** Characters (UTF-16 code units) of a step or sleep name. */
export const maxStepNameLength = 200;

/** Longest sleep. A later instant than this is more likely a mistake than a plan. */
export const maxSleepMs = 365 * 24 * 60 * 60 * 1000;

/** Longest timeout of a wait token: a person answers within a month or not at all. */
export const maxTokenTimeoutMs = 30 * 24 * 60 * 60 * 1000;

/** The most child executions one execution starts (`ctx.invoke`, `ctx.invokeMany`, `ctx.start`), all its attempts together. */
export const maxChildrenPerExecution = 10_000;

/**
 * The deepest an execution may be started by others (`executions.depth`): a child, or an execution
 * an event of a workflow starts, is one deeper than its starter, and a start past this is refused.
 * It ends a workflow that starts itself, or sends the event it is started by, where no quota would.
 */
export const maxExecutionDepth = 64;

/**
 * What a wait token shows the person who answers it: a title, a description and a few labelled
 * values, in characters. Small enough to read on one page, and to list many waiting tokens.
 */
export const maxTokenTitleLength = 200;
export const maxTokenDescriptionLength = 2000;
export const maxTokenFields = 20;
export const maxTokenFieldLabelLength = 100;
export const maxTokenFieldValueLength = 1000;

/** Bytes of the JSON body that completes a wait token (what the workflow receives as `data`). */
export const maxTokenDataBytes = 256 * KiB;

/** How long a cancelled execution has to reach a step boundary before its sandbox process is killed. */
export const cancelGraceMs = 5000;

/** How long a sandbox child may take to load its bundle (top-level code included) before it is killed. */
export const bundleLoadTimeoutMs = 60_000;

/** How often the worker reads each sandbox process tree's resident memory. */
export const memoryWatchIntervalMs = 250;

/** `25.0 MiB`, `16.0 KiB`, `512 bytes`: sizes as the limits above are worded. */
export function formatBytes(bytes: number): string {
  if (bytes >= MiB) return `${(bytes / MiB).toFixed(1)} MiB`;
  if (bytes >= KiB) return `${(bytes / KiB).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

/** A limit as the error messages name it: `4 MiB`, `16 KiB`. */
export function formatLimit(bytes: number): string {
  if (bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes % KiB === 0) return `${bytes / KiB} KiB`;
  return `${bytes} bytes`;
}

/** How often the sandbox pool looks for processes to stop: idle too long, or of a deployment no longer active. */
export const sandboxSweepIntervalMs = 5000;

/** How long a sandbox process running nothing is kept warm by default (`WEFT_SANDBOX_IDLE_SECONDS`). */
export const defaultSandboxIdleMs = 300_000;

/**
 * Bytes of JSON text of one message a sandbox child sends its worker. A step's result, its logs
 * and the frame's fields fit well within it; the worker holds at most one such frame per child.
 */
export const maxChannelFrameBytes = 16 * MiB;

/**
 * Messages of a sandbox child the worker handles in one second; the rest wait unread until the
 * second is over. The worker's own reading paces the child: a busy deployment's steps are answered
 * later, and a flood costs the worker no more than this.
 */
export const maxChannelFramesPerSecond = 10_000;

/**
 * Seconds in a row a child may stay over maxChannelFramesPerSecond while it runs no execution
 * before it is ended as a flood. An honest child sends only for its executions, and for those the
 * worker just let go of until it hears so (at most storedBehindSteps each): at the default slots,
 * less than one second of the budget.
 */
export const maxIdleSecondsOverChannelBudget = 3;

/** Bytes a sandbox child's messages may carry in one second before the worker stops reading until the next. */
export const maxChannelBytesPerSecond = 64 * MiB;

/**
 * Bytes the worker may have waiting to be written to one child (it sends replays up to the stored
 * bytes of an execution); a child that stops reading its channel past this is ended.
 */
export const maxChannelPendingBytes = 2 * maxStoredBytesPerExecution;

/** Bytes of a sandbox child's stdout and stderr read per second; past it the worker reads on the next second. */
export const maxChildOutputBytesPerSecond = 256 * KiB;

/** Seconds in a row a sandbox child may write past that budget before it is ended for flooding its output. */
export const maxChildOutputSecondsOverBudget = 5;

/** Bytes of one piece of a child's stdout or stderr written to the platform's log. */
export const maxChildOutputLineBytes = 4 * KiB;
