import { createTestDatabase, type TestDatabase } from "@weft/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, credentials, memberships } from "../src/db/schema/index.ts";
import { findOrCreateAccount } from "../src/identity/accounts.ts";
import { credentialLifetimeMs, findActiveCredential, issueCredential } from "../src/identity/credentials.ts";
import { createManualClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";

let database: TestDatabase;
const clock = createManualClock();
const deps = { clock, ids: createIdGenerator(clock) };

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database.destroy();
});

describe("accounts", () => {
  it("creates an account with a personal workspace once per email, whatever its case", async () => {
    const first = await database.db.transaction((tx) => findOrCreateAccount(tx, deps, "Ada@Example.com"));
    const again = await database.db.transaction((tx) => findOrCreateAccount(tx, deps, " ada@example.com "));
    expect(first.created).toBe(true);
    expect(again).toEqual({ ...first, created: false });
    expect(first.email).toBe("ada@example.com");
    const roles = await database.db.select().from(memberships).where(eq(memberships.accountId, first.accountId));
    expect(roles).toEqual([expect.objectContaining({ workspaceId: first.personalWorkspaceId, role: "owner" })]);
  });
});

describe("credentials", () => {
  it("stores only a hash and finds the credential until it expires after 30 days", async () => {
    const account = await database.db.transaction((tx) => findOrCreateAccount(tx, deps, "grace@example.com"));
    const issued = await database.db.transaction((tx) =>
      issueCredential(tx, deps, { accountId: account.accountId, scopes: ["projects:read"] }),
    );
    expect(issued.credential).toMatch(/^weft_[A-Za-z0-9_-]{43}$/);
    const [stored] = await database.db.select().from(credentials).where(eq(credentials.id, issued.credentialId));
    expect(JSON.stringify(stored)).not.toContain(issued.credential);
    expect(issued.expiresAt.getTime() - clock.now().getTime()).toBe(credentialLifetimeMs);

    expect(await findActiveCredential(database.db, clock, issued.credential)).toMatchObject({
      accountId: account.accountId,
      scopes: ["projects:read"],
    });
    expect(await findActiveCredential(database.db, clock, `${issued.credential}x`)).toBeUndefined();
    expect(await findActiveCredential(database.db, clock, "not-a-credential")).toBeUndefined();

    clock.advance(credentialLifetimeMs - 1);
    expect(await findActiveCredential(database.db, clock, issued.credential)).toBeDefined();
    clock.advance(1);
    expect(await findActiveCredential(database.db, clock, issued.credential)).toBeUndefined();

    const events = await database.db.select().from(auditEvents).where(eq(auditEvents.targetId, issued.credentialId));
    expect(events.map((event) => event.action)).toEqual(["credential.issued"]);
  });
});
