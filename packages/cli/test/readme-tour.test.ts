import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { claimCodeOf, decide, freePort } from "@weft/testing";
import { describe, expect, it } from "vitest";
import { npmSettingsOfTheMachine, plainNodeDirectory } from "./support/machine-node.ts";
import { tourSteps } from "./support/readme-tour.ts";
import { type ShellCommandResult, type ShellSession, startShell } from "./support/shell-session.ts";
import { startInTerminal, type TerminalProcess } from "./support/terminal-process.ts";

const repository = fileURLToPath(new URL("../../..", import.meta.url));
const tourHeading = "Five minutes with the `weft` CLI";

/** The PATH of a terminal on this machine: its own Node first, no node_modules/.bin of an npm script. */
const machinePath = [
  plainNodeDirectory,
  ...(process.env.PATH ?? "").split(":").filter((directory) => !directory.includes("node_modules")),
].join(":");

/**
 * What the person does in the browser in step 3: opens the dev mailbox until the approval mail to
 * `email` is there, follows its link, presses Approve (the page's form, posted as the browser
 * posts it), and reads the code the page then shows.
 */
async function approveInTheMailbox(mailboxLink: string, email: string): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const mailbox = await fetch(mailboxLink);
    expect(mailbox.status, mailboxLink).toBe(200);
    const mail = (await mailbox.text()).split("<article>").find((article) => article.includes(`To ${email},`));
    const approvalLink = mail === undefined ? undefined : /href="([^"]*\/agent\/auth\/approve\?[^"]*)"/.exec(mail)?.[1];
    if (approvalLink !== undefined) {
      const approved = await decide(approvalLink.replaceAll("&amp;", "&"), "approve");
      expect(approved.status).toBe(200);
      return claimCodeOf(approved.html);
    }
    if (Date.now() > deadline) throw new Error(`no approval mail to ${email} in the dev mailbox`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function succeeded(result: ShellCommandResult): ShellCommandResult {
  expect(result.status, `\`${result.command}\` failed:\n${result.output}`).toBe(0);
  return result;
}

// A fresh clone, its `npm install`, the platform's start and the tour take about 40 s on 2 cores with
// npm's cache filled (minutes without it), so this runs as its own CI step: npm run test:newcomer.
describe.runIf(process.env.WEFT_TEST_NEWCOMER === "1")("the README's tour of the weft CLI, from a fresh clone", () => {
  it("runs as written: the platform in terminal 1, the CLI in terminal 2, the project installed and type-checked under both Nodes", async () => {
    // The README of the working tree, so that an edit of the tour is tested before it is committed;
    // the clone is of HEAD, as a newcomer's is of what was pushed.
    const steps = tourSteps(readFileSync(join(repository, "README.md"), "utf8"), tourHeading);
    expect(steps.map((step) => step.number)).toEqual(steps.map((_, index) => index + 1));
    const [platformStep, ...cliSteps] = steps;
    if (platformStep === undefined) throw new Error("the tour has no steps");

    const work = mkdtempSync(join(tmpdir(), "weft-newcomer-"));
    const clone = join(work, "weft");
    const home = join(work, "home");
    mkdirSync(home);
    const project = join(work, "hello");
    execFileSync("git", ["clone", "--quiet", repository, clone]);
    // The tour's platform serves on localhost:3000, which something else on this machine may hold: it
    // listens on a free port instead (PORT), each command runs with `localhost:3000` rewritten to it,
    // and the CLI, whose default address is localhost:3000, is pointed at it with WEFT_API_URL. The
    // project goes to a temporary directory of its own, in place of /tmp/hello.
    const port = await freePort();
    const baseUrl = `http://localhost:${port}`;
    const asWritten = (command: string) =>
      command.replaceAll("localhost:3000", `localhost:${port}`).replaceAll("/tmp/hello", project);
    const environment: Record<string, string> = {
      PATH: machinePath,
      HOME: home,
      TERM: "xterm-256color",
      PORT: String(port),
      WEFT_API_URL: baseUrl,
      ...npmSettingsOfTheMachine(),
    };

    const ran: (ShellCommandResult & { step: number })[] = [];
    const outputOf = (start: string): string => {
      // The last: `weft deploy` redeploys after `weft deploy --create` made the project.
      const result = ran.findLast((entry) => entry.command.startsWith(start));
      if (result === undefined) throw new Error(`the tour no longer runs \`${start}…\``);
      return result.output;
    };
    const terminals: ShellSession[] = [];
    const shell = (cwd: string) => {
      const session = startShell(cwd, environment);
      terminals.push(session);
      return session;
    };
    let platform: TerminalProcess | undefined;
    let loginEmail: string | undefined;
    try {
      // Terminal 1, at the clone's root: every command but the last runs to its end; the last one is
      // the platform, which keeps running in a terminal of its own while the person works in terminal 2.
      const starting = platformStep.commands.map(asWritten);
      const platformCommand = starting.pop();
      if (platformCommand === undefined) throw new Error("step 1 starts no platform");
      const terminal1 = shell(clone);
      for (const command of starting) ran.push({ step: 1, ...succeeded(await terminal1.run(command, 600_000)) });
      platform = startInTerminal(platformCommand, clone, environment);
      await platform.waitFor(`Weft is running at ${baseUrl}`);
      await platform.waitFor("Dev mailbox: ");
      const mailboxLink = /Dev mailbox: (\S+)/.exec(platform.output())?.[1] ?? "";

      const terminal2 = shell(clone);
      for (const step of cliSteps) {
        if (step.text.includes("Edit `workflows/greet.ts`")) {
          // The person's change to the workflow, in an editor.
          const greet = join(project, "workflows", "greet.ts");
          const before = readFileSync(greet, "utf8");
          writeFileSync(greet, before.replace("`Hello, ", "`Hi, "));
          expect(readFileSync(greet, "utf8")).not.toBe(before);
        }
        for (const command of step.commands.map(asWritten)) {
          const email = /^weft login --email (\S+)/.exec(command)?.[1];
          loginEmail ??= email;
          if (email === undefined) {
            ran.push({ step: step.number, ...succeeded(await terminal2.run(command)) });
            continue;
          }
          // The README shows the mailbox's link as `npm start` prints it, key and all.
          expect(asWritten(step.text)).toContain(mailboxLink.slice(0, mailboxLink.indexOf("key=") + "key=".length));
          const login = terminal2.run(command);
          const code = await approveInTheMailbox(mailboxLink, email);
          terminal2.type(`${code}\n`);
          ran.push({ step: step.number, ...succeeded(await login) });
        }
        if (step.commands.some((command) => command.startsWith("weft init"))) {
          // The same install and type-check in a copy of the project, under the Node that the PATH
          // of step 2 did not put first: the machine's.
          const copy = join(work, "hello-on-the-machine-node");
          cpSync(project, copy, {
            recursive: true,
            filter: (source) => !/[/\\](node_modules|package-lock\.json)$/.test(source),
          });
          const onTheMachineNode = shell(copy);
          const nodes = [
            succeeded(await onTheMachineNode.run("node --version")).output.trim(),
            succeeded(await terminal2.run("node --version")).output.trim(),
          ];
          console.log(`the project installs and type-checks under Node ${nodes.join(" and ")}`);
          for (const command of step.commands.filter((command) => /^(npm|npx) /.test(command))) {
            succeeded(await onTheMachineNode.run(command));
          }
        }
      }

      const version = (
        JSON.parse(readFileSync(join(repository, "packages/cli/package.json"), "utf8")) as {
          version: string;
        }
      ).version;
      expect(outputOf("weft --version").trim()).toBe(version);
      expect(outputOf("weft login")).toContain(`Logged in as ${loginEmail}`);
      expect(outputOf("weft whoami")).toMatch(new RegExp(`account\\s+${loginEmail}`));
      for (const file of ["weft.config.ts", "workflows", "tsconfig.json", "package.json"]) {
        expect(existsSync(join(project, file)), file).toBe(true);
      }
      const projectId = /project: "(prj_[0-9a-z]+)"/.exec(readFileSync(join(project, "weft.config.ts"), "utf8"))?.[1];
      expect(projectId, "weft deploy --create pins the project into weft.config.ts").toBeDefined();
      const deployed = outputOf("weft deploy --create");
      expect(deployed).toContain("Deployment #1 is live.");
      expect(deployed).toContain(`${baseUrl}/triggers/forms/${projectId}/contact`);
      expect(deployed).toContain(`${baseUrl}/triggers/webhooks/${projectId}/incoming`);

      const formExecution = /^(exe_[0-9a-z]+)\n$/.exec(outputOf("echo $EXECUTION"))?.[1];
      expect(formExecution, outputOf("echo $EXECUTION")).toBeDefined();
      const webhookCall = outputOf(`curl -s -X POST "${baseUrl}/triggers/webhooks/`);
      const webhookExecution = (JSON.parse(webhookCall) as { executionIds: string[] }).executionIds[0] ?? "";
      expect(webhookExecution).toMatch(/^exe_/);
      expect(outputOf("weft executions watch")).toMatch(/succeeded\n/);
      const shown = outputOf("weft executions get");
      expect(shown).toMatch(/input\s+\{"name":"Ada"\}/);
      expect(shown).toMatch(/output\s+\{"greeting":"Hello, Ada!"\}/);
      expect(shown).toMatch(/trace\s+[0-9a-f]{32}/);
      expect(shown).toMatch(/compose\s+step/);
      const listed = outputOf("weft executions list");
      expect(listed).toMatch(new RegExp(`${webhookExecution}\\s+greet-caller[\\s\\S]*${formExecution}\\s+greet `));
      expect(outputOf("weft traces list")).toMatch(
        new RegExp(`execution greet-caller\\s+${webhookExecution}[\\s\\S]*execution greet\\s+${formExecution}`),
      );

      expect(outputOf("weft deploy ")).toContain("Deployment #2 is live.");
      expect(outputOf("weft workflows run greet")).toContain('output: {"greeting":"Hi, Grace!"}');
      expect(outputOf("weft deployments rollback 1")).toContain("deployment #1 is active again");
      expect(succeeded(await terminal2.run("weft deployments list")).output).toMatch(/^1\s+dep_\S+\s+active /m);

      // "Stop it with Ctrl-C": in-flight requests finish, the database is closed, the process ends.
      const stopped = platform;
      platform = undefined;
      await stopped.interrupt();
    } catch (error) {
      const shown = ran.map((entry) => `[${entry.step}] $ ${entry.command}\n${entry.output}`).join("\n");
      throw new Error(`${String(error)}\n\nplatform:\n${platform?.output() ?? ""}\n\nterminals:\n${shown}`, {
        cause: error,
      });
    } finally {
      await platform?.interrupt().catch(() => undefined);
      for (const session of terminals) await session.close();
      rmSync(work, { recursive: true, force: true });
    }
  }, 900_000);
});
