import { callRpc, createTestIdentity, startTestPlatform, type TestIdentity, type TestPlatform } from "@weft/testing";
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvalCsrfTokenIsValidUnder, issueApprovalCsrfToken } from "../src/auth/approval-csrf.ts";
import { claimCodeDigest, claimCodeMatches } from "../src/auth/claim-code.ts";
import { acceptedSecretKeys } from "../src/config/secret-key.ts";
import { integrations } from "../src/db/schema/index.ts";
import {
  checkCsrfTokenUnderKeys,
  csrfTokenLifetimeMs,
  deriveCsrfKey,
  issueCsrfToken,
} from "../src/ingress/csrf-token.ts";
import { rotateIntegrationSecrets } from "../src/integrations/rotate-secret-key.ts";
import { openSecrets } from "../src/integrations/sealed-secrets.ts";
import { integrationKeyring } from "../src/integrations/secret-sealing.ts";

const oldKey = Buffer.alloc(32, 0xa1);
const newKey = Buffer.alloc(32, 0xb2);
const during = integrationKeyring({ secretKey: newKey, secretKeyPrevious: oldKey });
const after = integrationKeyring({ secretKey: newKey });

let weft: TestPlatform;
let owner: TestIdentity;
let projectId: string;
const values = new Map<string, string>();

beforeAll(async () => {
  weft = await startTestPlatform({ env: { WEFT_SECRET_KEY: oldKey.toString("hex") } });
  owner = await createTestIdentity(weft, "rotation@example.com");
  const created = await callRpc(weft.url, "projects.create", { name: "Rotation" }, { token: owner.credential });
  projectId = (created.json as { id: string }).id;
  for (let index = 0; index < 5; index += 1) {
    const name = `key-${index}`;
    const value = `sk_rotation_${index}_0f1e2d3c`;
    values.set(name, value);
    const result = await callRpc(
      weft.url,
      "integrations.create",
      { projectId, name, kind: "secret", secrets: { value } },
      { token: owner.credential },
    );
    expect(result.status, result.text).toBe(200);
  }
}, 60_000);

afterAll(async () => {
  await weft.stop();
});

async function rows() {
  return weft.database.db
    .select()
    .from(integrations)
    .where(eq(integrations.projectId, projectId))
    .orderBy(asc(integrations.name));
}

describe("secret key rotation", () => {
  it("re-seals in batches, and a run interrupted midway resumes where it stopped", async () => {
    const before = await rows();
    expect(new Set(before.map((row) => row.keyId))).toEqual(
      new Set([integrationKeyring({ secretKey: oldKey }).current.id]),
    );

    const interrupted = rotateIntegrationSecrets(weft.database.db, during, {
      batchSize: 2,
      onBatch: () => {
        throw new Error("the process was stopped");
      },
    });
    await expect(interrupted).rejects.toThrow("the process was stopped");
    const midway = await rows();
    expect(midway.filter((row) => row.keyId === during.current.id).map((row) => row.name)).toEqual(["key-0", "key-1"]);

    const progress: number[] = [];
    const resumed = await rotateIntegrationSecrets(weft.database.db, during, {
      batchSize: 2,
      onBatch: (step) => progress.push(step.remaining),
    });
    expect(resumed).toEqual({ resealed: 3, unopenable: 0, remaining: 0 });
    expect(progress).toEqual([1, 0]);

    for (const row of await rows()) {
      expect(row.keyId).toBe(after.current.id);
      // Hints and authors survive; only the sealed values change.
      const previous = before.find((candidate) => candidate.name === row.name);
      expect(row.secrets.value?.hint).toBe(previous?.secrets.value?.hint);
      expect(row.secrets.value?.sealed).not.toBe(previous?.secrets.value?.sealed);
      expect(openSecrets(after, row)).toEqual({ value: values.get(row.name) });
    }
    expect(await rotateIntegrationSecrets(weft.database.db, during, { batchSize: 2 })).toEqual({
      resealed: 0,
      unopenable: 0,
      remaining: 0,
    });
  });

  it("leaves a row no key opens as it is, and reports it", async () => {
    const unknownKey = integrationKeyring({ secretKey: Buffer.alloc(32, 0xc3) });
    const [first] = await rows();
    if (first === undefined) throw new Error("no row");
    await weft.database.db
      .update(integrations)
      .set({ keyId: unknownKey.current.id })
      .where(eq(integrations.name, first.name));
    const [stuck] = await rows();
    const result = await rotateIntegrationSecrets(weft.database.db, during, { batchSize: 2 });
    expect(result).toEqual({ resealed: 0, unopenable: 1, remaining: 1 });
    expect((await rows())[0]).toEqual(stuck);
  });
});

describe("tokens signed before a rotation", () => {
  const issued = new Date("2026-01-01T00:00:00.000Z");
  const rotating = acceptedSecretKeys({ secretKey: newKey, secretKeyPrevious: oldKey });
  const rotated = acceptedSecretKeys({ secretKey: newKey });

  it("keeps a hosted form's CSRF token valid under WEFT_SECRET_KEY_PREVIOUS until it expires", () => {
    const binding = { projectId: "prj_a", formName: "contact" };
    const token = issueCsrfToken(deriveCsrfKey(oldKey), binding, issued);
    expect(checkCsrfTokenUnderKeys(rotating.map(deriveCsrfKey), binding, token, issued)).toMatchObject({ ok: true });
    const expiry = new Date(issued.getTime() + csrfTokenLifetimeMs);
    expect(checkCsrfTokenUnderKeys(rotating.map(deriveCsrfKey), binding, token, expiry)).toEqual({
      ok: false,
      reason: "expired",
    });
    expect(checkCsrfTokenUnderKeys(rotated.map(deriveCsrfKey), binding, token, issued)).toEqual({
      ok: false,
      reason: "forged",
    });
  });

  it("keeps an approval page's CSRF token valid under WEFT_SECRET_KEY_PREVIOUS", () => {
    const token = issueApprovalCsrfToken(oldKey, "apv_link", issued);
    expect(approvalCsrfTokenIsValidUnder(rotating, "apv_link", token, issued)).toBe(true);
    expect(approvalCsrfTokenIsValidUnder(rotated, "apv_link", token, issued)).toBe(false);
    expect(approvalCsrfTokenIsValidUnder(rotating, "apv_other", token, issued)).toBe(false);
  });

  it("keeps a claim code shown before the rotation claimable under WEFT_SECRET_KEY_PREVIOUS", () => {
    const digest = claimCodeDigest(oldKey, "reg_a", "123456");
    expect(claimCodeMatches(rotating, "reg_a", "123456", digest)).toBe(true);
    expect(claimCodeMatches(rotating, "reg_a", "654321", digest)).toBe(false);
    expect(claimCodeMatches(rotating, "reg_b", "123456", digest)).toBe(false);
    expect(claimCodeMatches(rotated, "reg_a", "123456", digest)).toBe(false);
  });
});
