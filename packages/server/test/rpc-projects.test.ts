import { callRpc, createTestIdentity, signedInTestPlatform } from "@weft/testing";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents, memberships, projects, workspaces } from "../src/db/schema/index.ts";

const signedIn = signedInTestPlatform("ada@example.com");

async function projectRows() {
  return signedIn.weft.database.db.select().from(projects);
}

describe("projects namespace", () => {
  it("creates, reads, lists, renames and deletes a project, auditing every change", async () => {
    // An instant with milliseconds, so that every path must carry them to the wire.
    signedIn.weft.clock.advance(123);
    const created = await signedIn.call("projects.create", { name: "Website" });
    expect(created.status).toBe(200);
    expect(created.json).toEqual({
      id: expect.stringMatching(/^prj_[0-9a-z]{26}$/),
      workspaceId: signedIn.identity.personalWorkspaceId,
      name: "Website",
      retentionDays: null,
      createdAt: signedIn.weft.clock.now().toISOString(),
      updatedAt: signedIn.weft.clock.now().toISOString(),
    });
    const project = created.json as { id: string };

    const read = await signedIn.call("projects.get", { projectId: project.id });
    expect(read).toMatchObject({ status: 200, json: created.json });

    const listed = await signedIn.call("projects.list", {});
    expect(listed.json).toMatchObject({ totalCount: 1, results: [created.json] });

    signedIn.weft.clock.advance(1000);
    const renamed = await signedIn.call("projects.update", { projectId: project.id, name: "Site" });
    expect(renamed.json).toMatchObject({
      id: project.id,
      name: "Site",
      updatedAt: signedIn.weft.clock.now().toISOString(),
    });

    const deleted = await signedIn.call("projects.delete", { projectId: project.id });
    expect(deleted).toMatchObject({ status: 200, json: { id: project.id, deleted: true } });
    const gone = await signedIn.call("projects.get", { projectId: project.id });
    expect(gone).toMatchObject({ status: 404, json: { code: "NOT_FOUND" } });

    const events = await signedIn.weft.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.targetId, project.id));
    expect(events.map((event) => [event.action, event.actorCredentialId, event.workspaceId])).toEqual([
      ["project.created", signedIn.identity.credentialId, signedIn.identity.personalWorkspaceId],
      ["project.renamed", signedIn.identity.credentialId, signedIn.identity.personalWorkspaceId],
      ["project.deleted", signedIn.identity.credentialId, signedIn.identity.personalWorkspaceId],
    ]);
  });
});

describe("bad inputs", () => {
  it.each([
    ["projects.create", { name: "" }, ["name"]],
    ["projects.create", { name: "   " }, ["name"]],
    ["projects.create", { name: "x".repeat(65) }, ["name"]],
    ["projects.create", {}, ["name"]],
    ["projects.create", { name: "ok", workspaceId: "somewhere" }, ["workspaceId"]],
    ["projects.create", { name: "ok", colour: "red" }, []],
    ["projects.get", { projectId: "42" }, ["projectId"]],
    ["projects.update", { projectId: "prj_01kdvdna00r1yb5ajdaj0w7jrt", name: 7 }, ["name"]],
    ["projects.delete", {}, ["projectId"]],
    ["projects.list", { pagination: { first: "ten" } }, ["pagination", "first"]],
  ])("%s %j gets BAD_REQUEST naming %j and changes nothing", async (procedure, input, path) => {
    const before = await projectRows();
    const result = await signedIn.call(procedure, input);
    expect(result.status).toBe(400);
    expect(result.json).toMatchObject({
      code: "BAD_REQUEST",
      data: { issues: expect.arrayContaining([expect.objectContaining({ path, message: expect.any(String) })]) },
    });
    expect(await projectRows()).toEqual(before);
  });

  it("refuses a name already used in the workspace, and accepts it in another user's workspace", async () => {
    const first = await signedIn.call("projects.create", { name: "Docs" });
    expect(first.status).toBe(200);
    const before = await projectRows();
    const again = await signedIn.call("projects.create", { name: "Docs" });
    expect(again).toMatchObject({
      status: 409,
      json: { code: "CONFLICT", message: 'A project named "Docs" already exists in this workspace.' },
    });
    expect(await projectRows()).toEqual(before);

    const other = await signedIn.call("projects.create", { name: "Blog" });
    const clash = await callRpc(
      signedIn.weft.url,
      "projects.update",
      { projectId: (other.json as { id: string }).id, name: "Docs" },
      { token: signedIn.identity.credential },
    );
    expect(clash).toMatchObject({ status: 409, json: { code: "CONFLICT", message: expect.stringContaining("Docs") } });
    expect(await projectRows()).toHaveLength(before.length + 1);

    const someoneElse = await createTestIdentity(signedIn.weft, "someone@example.com");
    const elsewhere = await callRpc(
      signedIn.weft.url,
      "projects.create",
      { name: "Docs" },
      { token: someoneElse.credential },
    );
    expect(elsewhere.status).toBe(200);
  });
});

describe("several workspaces", () => {
  it("lists the projects of every workspace of the user, filters by one, and respects the role in each", async () => {
    const team = await createTestIdentity(signedIn.weft, "team-owner@example.com");
    const carol = await createTestIdentity(signedIn.weft, "carol@example.com");
    const now = signedIn.weft.clock.now();
    const viewerWorkspaceId = `wsp_${"0".repeat(25)}1`;
    await signedIn.weft.database.db
      .insert(workspaces)
      .values({ id: viewerWorkspaceId, name: "Read-only", billingAccountId: team.accountId, createdAt: now });
    await signedIn.weft.database.db.insert(memberships).values([
      { workspaceId: team.personalWorkspaceId, accountId: carol.accountId, role: "member", createdAt: now },
      { workspaceId: viewerWorkspaceId, accountId: carol.accountId, role: "viewer", createdAt: now },
    ]);
    const carolAgain = await createTestIdentity(signedIn.weft, "carol@example.com");
    const token = carolAgain.credential;

    const own = await callRpc(signedIn.weft.url, "projects.create", { name: "Mine" }, { token });
    const shared = await callRpc(
      signedIn.weft.url,
      "projects.create",
      { name: "Ours", workspaceId: team.personalWorkspaceId },
      { token },
    );
    expect(shared.json).toMatchObject({ workspaceId: team.personalWorkspaceId });
    const teamOwn = await callRpc(signedIn.weft.url, "projects.create", { name: "Boss" }, { token: team.credential });

    const all = await callRpc(signedIn.weft.url, "projects.list", {}, { token });
    expect((all.json as { results: { name: string }[] }).results.map((project) => project.name)).toEqual([
      "Mine",
      "Ours",
      "Boss",
    ]);
    const filtered = await callRpc(
      signedIn.weft.url,
      "projects.list",
      { workspaceId: team.personalWorkspaceId },
      { token },
    );
    expect(filtered.json).toMatchObject({ totalCount: 2, results: [shared.json, teamOwn.json] });
    expect(own.json).toMatchObject({ workspaceId: carol.personalWorkspaceId });

    const before = await projectRows();
    const asViewer = await callRpc(
      signedIn.weft.url,
      "projects.create",
      { name: "Nope", workspaceId: viewerWorkspaceId },
      { token },
    );
    expect(asViewer).toMatchObject({ status: 403, json: { code: "FORBIDDEN" } });
    expect(await projectRows()).toEqual(before);
  });
});
