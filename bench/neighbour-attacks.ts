/**
 * Tenant A of the neighbours benchmark: its `weft.config.ts`, whose workflows each attack the host
 * side of the sandbox in one way, and how each attack is driven through a phase.
 */
import { attackerHelpers } from "@weft/testing";

/** Every workflow of tenant A, in its `weft.config.ts` below. */
const attackWorkflows = [
  "channel-line",
  "no-newline",
  "garbage",
  "frame-over-cap",
  "tiny-frames",
  "stdout-flood",
  "tunnels",
  "idle-sockets",
  "fill",
  "spin",
] as const;
export type AttackWorkflow = (typeof attackWorkflows)[number];

/** A's timeout: what ends a busy loop that nothing else ends. */
const attackTimeout = "30s";
const attackTimeoutMs = 30_000;

export const attackerSource = `
import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import { defineConfig, workflow } from "@weft/sdk";

${attackerHelpers}
/** Runs \`open\` \`count\` times, at most \`lanes\` at once. */
async function inLanes(count, lanes, open) {
  let next = 0;
  await Promise.all(Array.from({ length: lanes }, async () => {
    while (next < count) {
      next += 1;
      await open();
    }
  }));
}
function tally(counts, key) {
  counts[key] = (counts[key] ?? 0) + 1;
}
/** Sockets held by this child; destroyed at \`until\` in case the execution is halted before. */
const held = new Set();
function releaseAt(until) {
  setTimeout(() => {
    for (const socket of held) socket.destroy();
    held.clear();
  }, Math.max(0, until - Date.now())).unref();
}
/** One CONNECT tunnel through the egress proxy's socket, held open once established. */
function tunnel(port, counts) {
  return new Promise((resolve) => {
    const socket = connect("/weft/egress.sock");
    held.add(socket);
    let text = "";
    let answered = false;
    const settle = (outcome) => {
      if (answered) return;
      answered = true;
      tally(counts, outcome);
      resolve();
    };
    socket.on("error", (error) => settle("error " + (error.code ?? error.message)));
    socket.on("close", () => {
      held.delete(socket);
      const refusal = /weft egress proxy: ([^\\n]*)/.exec(text)?.[1];
      settle(refusal === undefined ? "closed: " + (text.split("\\r\\n")[0] || "no answer") : "refused: " + refusal);
    });
    socket.on("connect", () => socket.write("CONNECT 127.0.0.1:" + port + " HTTP/1.1\\r\\nhost: 127.0.0.1\\r\\n\\r\\n"));
    socket.on("data", (chunk) => {
      if (text.length < 4096) text += chunk.toString("latin1");
      if (text.startsWith("HTTP/1.1 200") && text.includes("\\r\\n\\r\\n")) settle("established");
    });
  });
}

/**
 * A connection to the egress proxy's socket that never sends a byte, opened again as soon as it is
 * cut, until \`until\`. It reads, so that it sees the proxy's answer and its end.
 */
function idle(until, counts) {
  return new Promise((resolve) => {
    const socket = connect("/weft/egress.sock");
    held.add(socket);
    let answer = "";
    let failed = false;
    socket.on("data", (chunk) => {
      if (answer.length < 200) answer += chunk.toString("latin1");
    });
    socket.on("error", (error) => {
      failed = true;
      tally(counts, "error " + (error.code ?? error.message));
    });
    socket.on("connect", () => {
      tally(counts, "connected");
      resolve();
    });
    socket.on("close", () => {
      held.delete(socket);
      if (!failed) tally(counts, answer === "" ? "cut without an answer" : "cut: " + answer.split("\\r\\n")[0]);
      if (Date.now() < until) setTimeout(() => void idle(until, counts), failed ? 100 : 0);
      resolve();
    });
  });
}

const attacks = {
  "channel-line": async () => {
    write(Buffer.from("}\\n"));
    await forever();
  },
  "no-newline": async () => {
    const piece = Buffer.alloc(1024 * 1024, "x");
    for (let i = 0; i < 600; i += 1) write(piece);
    await forever();
  },
  garbage: async () => {
    write(randomBytes(64 * 1024));
    await forever();
  },
  "frame-over-cap": async (input) => {
    write(header(input.length));
    write(Buffer.alloc(1024 * 1024, "x"));
    await forever();
  },
  "tiny-frames": async () => {
    const body = Buffer.from(JSON.stringify({ type: "ready" }));
    const frame = Buffer.concat([header(body.length), body]);
    const batch = Buffer.concat(Array.from({ length: 1000 }, () => frame));
    for (;;) write(batch);
  },
  "stdout-flood": async () => {
    const line = "x".repeat(64 * 1024) + "\\n";
    for (;;) await new Promise((resolve) => process.stdout.write(line, resolve));
  },
  tunnels: async (input, ctx) => {
    releaseAt(input.until);
    await ctx.step("open", async () => {
      const counts = {};
      await inLanes(input.count, 256, () => tunnel(input.port, counts));
      return counts;
    });
    await forever();
  },
  "idle-sockets": async (input, ctx) => {
    releaseAt(input.until);
    await ctx.step("open", async () => {
      const counts = {};
      await inLanes(input.count, 256, () => idle(input.until, counts));
      // What the proxy did with them in their first seconds: the report is the step's result.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      return counts;
    });
    await forever();
  },
  fill: async (input, ctx) => ctx.step("fill", () => fill(input.path)),
  spin: async (input, ctx) =>
    ctx.step("spin", () => {
      for (;;) {}
    }),
};

export default defineConfig({
  workflows: Object.entries(attacks).map(([name, run]) =>
    workflow({ name, retries: { maxAttempts: 1 }, timeout: ${JSON.stringify(attackTimeout)}, run }),
  ),
});
`;

export const attackerManifest = {
  version: 1,
  workflows: attackWorkflows.map((name) => ({
    name,
    retries: { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 },
    timeoutMs: attackTimeoutMs,
  })),
};

/**
 * One execution of A to start: its workflow and input. The benchmark adds `until` to the input:
 * the epoch milliseconds after which a held attack lets go of what it holds, should nothing end it before.
 */
export interface AttackStart {
  workflow: AttackWorkflow;
  input: Record<string, unknown>;
}

/**
 * How an attack is kept up through a phase: `inFlight` executions are started at once, and
 * whenever fewer of A's executions are unfinished (the platform ended some), another is started,
 * looking `perSecond` times a second. `nth` is the execution to start after `index` others.
 */
export interface AttackDrive {
  inFlight: number;
  perSecond: number;
  nth: (index: number) => AttackStart;
}

export interface Attack {
  /** The attack as the table names it. */
  label: string;
  drive: AttackDrive;
}

export interface AttackSetting {
  /** The loopback port of the slow listener, which the egress proxy lets A reach. */
  listenerPort: number;
  /** A's channel frame cap (`maxChannelFrameBytes`). */
  frameCap: number;
}

/** Attacks the platform ends within a second or so: four at a time, started again as they end. */
const repeated = (start: AttackStart | ((index: number) => AttackStart)): AttackDrive => ({
  inFlight: 4,
  perSecond: 4,
  nth: typeof start === "function" ? start : () => start,
});

/** Attacks that last: `count` of them, started again should the platform end one. */
const held = (count: number, start: AttackStart): AttackDrive => ({ inFlight: count, perSecond: 1, nth: () => start });

/** The attacks, in the order the benchmark runs them. */
export function attacks(setting: AttackSetting): Attack[] {
  return [
    { label: 'channel: "}\\n"', drive: repeated({ workflow: "channel-line", input: {} }) },
    { label: "channel: 600 MiB, no frame", drive: repeated({ workflow: "no-newline", input: {} }) },
    { label: "channel: 64 KiB random", drive: repeated({ workflow: "garbage", input: {} }) },
    {
      label: "channel: frame of cap+1",
      drive: repeated({ workflow: "frame-over-cap", input: { length: setting.frameCap + 1 } }),
    },
    { label: "channel: tiny frames, endless", drive: held(1, { workflow: "tiny-frames", input: {} }) },
    { label: "stdout flood", drive: repeated({ workflow: "stdout-flood", input: {} }) },
    {
      label: "egress: 20 000 tunnels",
      drive: held(1, { workflow: "tunnels", input: { port: setting.listenerPort, count: 20_000 } }),
    },
    { label: "egress: 5 000 idle sockets", drive: held(1, { workflow: "idle-sockets", input: { count: 5000 } }) },
    {
      label: "1.5 GB to / and /tmp",
      drive: repeated((index) => ({ workflow: "fill", input: { path: index % 2 === 0 ? "/big.db" : "/tmp/big.db" } })),
    },
    { label: "10 busy loops", drive: held(10, { workflow: "spin", input: {} }) },
  ];
}
