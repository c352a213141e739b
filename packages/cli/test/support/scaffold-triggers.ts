import { formCsrfTokenOf } from "@weft/testing";
import { expect } from "vitest";
import { type CliResult, parseJson } from "./run-cli.ts";

/**
 * Calls each trigger of a `weft init` project exactly as the comment beside it in weft.config.ts
 * says, and watches each execution to success with `watch` (`weft executions watch <id> --json`).
 */
export async function callScaffoldedTriggers(
  baseUrl: string,
  projectId: string,
  watch: (executionId: string) => Promise<CliResult>,
): Promise<void> {
  const formUrl = `${baseUrl}/triggers/forms/${projectId}/contact`;
  const page = await fetch(formUrl);
  expect(page.status).toBe(200);
  const submitted = await fetch(formUrl, {
    method: "POST",
    body: new URLSearchParams({ _csrf: formCsrfTokenOf(await page.text()), name: "Form", email: "" }),
    redirect: "manual",
  });
  expect(submitted.status).toBe(303);
  const formExecution = new URL(submitted.headers.get("location") ?? "", baseUrl).searchParams.get("ref");
  expect(formExecution).toBeTruthy();

  const called = await fetch(`${baseUrl}/triggers/webhooks/${projectId}/incoming`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: '{"name":"Ada"}',
  });
  expect(called.status).toBe(202);
  const {
    executionIds: [webhookExecution],
  } = (await called.json()) as { executionIds: string[] };

  const form = await watch(formExecution as string);
  expect(form.code, form.stderr).toBe(0);
  expect(parseJson(form)).toMatchObject({ status: "succeeded", output: { greeting: "Hello, Form!" } });
  const webhook = await watch(webhookExecution as string);
  expect(webhook.code, webhook.stderr).toBe(0);
  expect(parseJson(webhook)).toMatchObject({ status: "succeeded", output: { greeting: "Hello, Ada!" } });
}
