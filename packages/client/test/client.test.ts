import { createClient, isRpcError, RpcError, requestIdOf } from "@weft/client";
import { signedInTestPlatform } from "@weft/testing";
import { describe, expect, expectTypeOf, it } from "vitest";

const signedIn = signedInTestPlatform("ada@example.com");

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected the call to be refused");
    },
    (error: unknown) => error,
  );
}

describe("createClient", () => {
  it("calls every projects procedure with typed inputs and outputs", async () => {
    const client = createClient({ baseUrl: `${signedIn.weft.url}/`, token: signedIn.identity.credential });
    const created = await client.projects.create({ name: "From the client" });
    expect(created).toMatchObject({ name: "From the client", workspaceId: signedIn.identity.personalWorkspaceId });
    expect(await client.projects.get({ projectId: created.id })).toEqual(created);
    const page = await client.projects.list({ pagination: { first: 10 } });
    expect(page.results.map((project) => project.id)).toEqual([created.id]);
    expect(page.totalCount).toBe(1);
    const renamed = await client.projects.update({ projectId: created.id, name: "Renamed" });
    expect(renamed.name).toBe("Renamed");
    expect(await client.projects.delete({ projectId: created.id })).toEqual({ id: created.id, deleted: true });
  });

  it("calls the access and agents namespaces, typed, and decodes CONFLICT", async () => {
    const client = createClient({ baseUrl: signedIn.weft.url, token: signedIn.identity.credential });
    const team = await client.access.createWorkspace({ name: "Client team" });
    expectTypeOf(team.role).toEqualTypeOf<"owner" | "admin" | "member" | "viewer">();
    expect(team).toMatchObject({ name: "Client team", role: "owner", personal: false });
    const members = await client.access.listMembers({ workspaceId: team.id });
    expect(members.results).toEqual([expect.objectContaining({ accountId: expect.any(String), role: "owner" })]);
    const invitation = await client.access.invite({ workspaceId: team.id, email: "grace@example.com", role: "viewer" });
    expect(invitation.status).toBe("pending");
    const again = await rejection(
      client.access.invite({ workspaceId: team.id, email: "grace@example.com", role: "viewer" }),
    );
    expect(isRpcError(again, "CONFLICT")).toBe(true);
    const log = await client.access.auditLog({ workspaceId: team.id, limit: 10 });
    expect(log.data.map((event) => event.action)).toEqual(["member.invited", "workspace.created"]);
    const agents = await client.agents.list({ status: "active" });
    expectTypeOf(agents.results[0]?.status).toEqualTypeOf<"active" | "revoked" | "expired" | undefined>();
    expect(agents.totalCount).toBe(0);
  });

  it("is typed from the contract", async () => {
    const client = createClient({ baseUrl: signedIn.weft.url, token: signedIn.identity.credential });
    expectTypeOf(client.projects.create)
      .parameter(0)
      .toEqualTypeOf<{ name: string; workspaceId?: string | undefined }>();
    expectTypeOf<Awaited<ReturnType<typeof client.projects.get>>>().toEqualTypeOf<{
      id: string;
      workspaceId: string;
      name: string;
      retentionDays: number | null;
      createdAt: string;
      updatedAt: string;
    }>();
    const everything = await client.projects.list();
    expect(everything.totalCount).toBe(0);
  });

  it("surfaces refusals as RpcError with code, message and data", async () => {
    const client = createClient({ baseUrl: signedIn.weft.url, token: signedIn.identity.credential });
    const missing = await rejection(client.projects.get({ projectId: `prj_${"0".repeat(26)}` }));
    expect(missing).toBeInstanceOf(RpcError);
    expect(isRpcError(missing, "NOT_FOUND")).toBe(true);
    expect(missing).toMatchObject({ code: "NOT_FOUND", status: 404, message: expect.stringContaining("No project") });

    const invalid = await rejection(client.projects.create({ name: "" }));
    expect(invalid).toMatchObject({ code: "BAD_REQUEST", data: { issues: [{ path: ["name"] }] } });

    const anonymous = createClient({ baseUrl: signedIn.weft.url, token: "weft_not-a-real-one" });
    expect(await rejection(anonymous.projects.list({}))).toMatchObject({ code: "UNAUTHORIZED", status: 401 });
  });
});

describe("createClient for a page (Studio)", () => {
  it("reaches the API at another mount with headers read before each call", async () => {
    let headers: Record<string, string> = { authorization: "Bearer weft_not-a-real-one" };
    const client = createClient({ baseUrl: signedIn.weft.url, rpcPath: "/rpc", headers: () => headers });
    expect(await rejection(client.projects.list({}))).toMatchObject({ code: "UNAUTHORIZED" });
    headers = { authorization: `Bearer ${signedIn.identity.credential}` };
    expect((await client.projects.list({})).totalCount).toBe(0);
  });

  it("refuses a mount where the API is not", async () => {
    const client = createClient({
      baseUrl: signedIn.weft.url,
      token: signedIn.identity.credential,
      rpcPath: "/nowhere",
    });
    expect(await rejection(client.projects.list({}))).toMatchObject({ status: 404 });
  });

  it("tells the request id of a refused call, as the server echoed it", async () => {
    const client = createClient({
      baseUrl: signedIn.weft.url,
      token: signedIn.identity.credential,
      headers: () => ({ "x-request-id": "studio-test-request-1" }),
    });
    const missing = await rejection(client.projects.get({ projectId: `prj_${"0".repeat(26)}` }));
    expect(requestIdOf(missing)).toBe("studio-test-request-1");
    expect(requestIdOf(new Error("not from a call"))).toBeUndefined();
  });
});
