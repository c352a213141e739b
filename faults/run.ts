import { randomInt } from "node:crypto";
import { runEmbeddedFaults } from "./embedded-faults.ts";
import { type FaultFigures, terminalBoundMs } from "./fault-checks.ts";
import { postgresBinDir } from "./own-postgres.ts";
import { runPostgresFaults, type ScenarioReport } from "./postgres-faults.ts";
import { seededRandom } from "./seeded-random.ts";

/**
 * `npm run test:faults`: the fault test. Load with a unique marker in every request, processes
 * SIGKILLed at seeded random moments, PostgreSQL restarted once; then the counts that prove that
 * nothing acknowledged is lost, nothing runs twice and nothing hangs. Exits 1 when a count is wrong.
 * WEFT_FAULTS_SECONDS sets the load time of each scenario (60 by default, the CI size);
 * WEFT_FAULTS_SEED replays a run's fault schedule.
 */
const write = (line: string) => process.stdout.write(`${line}\n`);
const seconds = Number(process.env.WEFT_FAULTS_SECONDS ?? 60);
const seed = Number(process.env.WEFT_FAULTS_SEED ?? randomInt(2 ** 31));
if (!Number.isInteger(seconds) || seconds < 20) {
  process.stderr.write(
    `WEFT_FAULTS_SECONDS: expected whole seconds, at least 20 (got ${process.env.WEFT_FAULTS_SECONDS})\n`,
  );
  process.exit(1);
}
write(
  `Fault test: ${seconds} s of load per scenario, seed ${seed} (WEFT_FAULTS_SEED=${seed} replays the fault schedule)`,
);

const failures: string[] = [];
function expectCount(scenario: string, what: string, actual: number, expected: number) {
  if (actual !== expected) failures.push(`${scenario}: ${what} is ${actual}, expected ${expected}`);
}

function printFigures(scenario: string, report: ScenarioReport) {
  const f: FaultFigures = report.figures;
  const by = f.acknowledgedBySurface;
  write(
    `  acknowledged (2xx) ${f.acknowledged} (webhooks ${by.webhook}, forms ${by.form}, workflows.run ${by.api}); ` +
      `executions ${f.executions} (${f.unacknowledgedExecutions} of requests whose answer was lost to a kill)`,
  );
  write(
    `  acknowledged without an execution ${f.acknowledgedWithoutExecution}, with more than one ${f.acknowledgedWithSeveral}; ` +
      `duplicates from ${f.apiRetries} retried workflows.run calls ${f.apiDuplicates}`,
  );
  write(
    `  terminal after ${(f.terminalAfterMs / 1000).toFixed(1)} s past the load (bound ${terminalBoundMs / 1000} s): not terminal ${f.notTerminal}, not succeeded ${f.failed}`,
  );
  write(
    `  step runs ${f.stepsRun}; completed steps run again ${f.completedStepsRerun}; most takeovers of one execution ${f.mostTakeovers}`,
  );
  write(
    `  5xx answers: webhooks ${f.answers5xx.webhook}, forms ${f.answers5xx.form}, workflows.run ${f.answers5xx.api}; ` +
      `no answer (connection reset by a kill) ${f.unanswered}; client timeouts ${f.timedOut}; answers after 5 s ${report.lateAnswers}`,
  );
  write(`  processes SIGKILLed ${report.kills}; processes that crashed ${report.crashes}`);
  expectCount(scenario, "processes that crashed", report.crashes, 0);
  expectCount(scenario, "acknowledged requests without an execution", f.acknowledgedWithoutExecution, 0);
  expectCount(scenario, "acknowledged requests with more than one execution", f.acknowledgedWithSeveral, 0);
  expectCount(scenario, "executions not terminal within the bound", f.notTerminal, 0);
  expectCount(scenario, "executions not succeeded", f.failed, 0);
  expectCount(scenario, "completed steps run again", f.completedStepsRerun, 0);
  expectCount(scenario, "duplicate executions from retried idempotent calls", f.apiDuplicates, 0);
  expectCount(scenario, "client timeouts", f.timedOut, 0);
  expectCount(scenario, "answers after 5 s", report.lateAnswers, 0);
  const all5xx = f.answers5xx.webhook + f.answers5xx.form + f.answers5xx.api;
  const restartRefusals = report.restart?.refused503WithRetryAfter ?? 0;
  // Outside the restart a 503 with Retry-After is the hot-path budget's refusal on a starved machine.
  write(
    `  503 with Retry-After outside the PostgreSQL restart ${all5xx - f.unexpected5xx - restartRefusals}; other 5xx ${f.unexpected5xx}`,
  );
  expectCount(scenario, "5xx answers other than 503 with Retry-After", f.unexpected5xx, 0);
  if (report.restart !== undefined) {
    expectCount(
      scenario,
      "refusals during the PostgreSQL restart other than 503 or 429 with Retry-After",
      report.restart.refusedOtherwise,
      0,
    );
    expectCount(scenario, "answers during the PostgreSQL restart after 5 s", report.restart.overBudget, 0);
  }
}

const binDir = postgresBinDir();
if (binDir === undefined) {
  const message =
    "PostgreSQL scenario: no PostgreSQL binaries in /usr/lib/postgresql/*/bin (apt-get install postgresql)";
  if (process.env.WEFT_TEST_REQUIRE_FAULTS === "1") failures.push(message);
  write(
    `${message}: skipped${process.env.WEFT_TEST_REQUIRE_FAULTS === "1" ? ", which WEFT_TEST_REQUIRE_FAULTS=1 forbids" : ""}`,
  );
} else {
  write(
    "PostgreSQL: 2 platform processes (api, ingress, auth), 2 workers, SIGKILLs and one pg_ctl restart -m immediate",
  );
  const random = seededRandom(seed);
  printFigures("PostgreSQL", await runPostgresFaults(binDir, { seconds, random, write }));
}

write("Embedded (PGlite): one process with every role, SIGKILLed and restarted on its data dir");
printFigures("embedded", await runEmbeddedFaults({ seconds, random: seededRandom(seed + 1), write }));

if (failures.length > 0) {
  write(`FAILED (seed ${seed}):`);
  for (const failure of failures) write(`  ${failure}`);
  process.exit(1);
}
write("All fault counts hold.");
process.exit(0);
