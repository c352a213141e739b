import { callRpc, createTestIdentity, startTestPlatform, type TestIdentity, type TestPlatform } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

interface Page {
  pagination: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor?: string; endCursor?: string };
  results: { id: string; name: string }[];
  totalCount: number;
}

let weft: TestPlatform;
let owner: TestIdentity;
const createdIds: string[] = [];

beforeAll(async () => {
  weft = await startTestPlatform();
  owner = await createTestIdentity(weft, "pager@example.com");
  const other = await createTestIdentity(weft, "someone-else@example.com");
  for (let index = 0; index < 250; index += 1) {
    const result = await callRpc(weft.url, "projects.create", { name: `p${index}` }, { token: owner.credential });
    createdIds.push((result.json as { id: string }).id);
    if (index % 50 === 0)
      await callRpc(weft.url, "projects.create", { name: `x${index}` }, { token: other.credential });
  }
}, 120_000);

afterAll(async () => {
  await weft.stop();
});

async function list(pagination?: Record<string, unknown>): Promise<Page> {
  const result = await callRpc(weft.url, "projects.list", pagination === undefined ? {} : { pagination }, {
    token: owner.credential,
  });
  expect(result.status).toBe(200);
  return result.json as Page;
}

describe("projects.list pagination", () => {
  it("walks 250 projects forward in pages of 20 by default, with no gap and no duplicate", async () => {
    const seen: string[] = [];
    let page = await list();
    expect(page.pagination.hasPreviousPage).toBe(false);
    for (;;) {
      expect(page.totalCount).toBe(250);
      expect(page.results.length).toBe(Math.min(20, 250 - seen.length));
      seen.push(...page.results.map((project) => project.id));
      if (!page.pagination.hasNextPage) break;
      page = await list({ after: page.pagination.endCursor });
      expect(page.pagination.hasPreviousPage).toBe(true);
    }
    expect(seen).toEqual(createdIds);
  });

  it("walks 250 projects backward with last/before, with no gap and no duplicate", async () => {
    const seen: string[] = [];
    let page = await list({ last: 100 });
    expect(page.pagination.hasNextPage).toBe(false);
    for (;;) {
      expect(page.totalCount).toBe(250);
      seen.unshift(...page.results.map((project) => project.id));
      if (!page.pagination.hasPreviousPage) break;
      page = await list({ last: 100, before: page.pagination.startCursor });
      expect(page.pagination.hasNextPage).toBe(true);
    }
    expect(seen).toEqual(createdIds);
  });

  it("turns around in the middle: the page before a page's start ends where the previous page ended", async () => {
    const first = await list({ first: 30 });
    const second = await list({ first: 30, after: first.pagination.endCursor });
    const back = await list({ last: 30, before: second.pagination.startCursor });
    expect(back.results).toEqual(first.results);
    expect(back.pagination).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
  });

  it("answers an empty page past the end without cursors", async () => {
    const last = await list({ last: 1 });
    const beyond = await list({ after: last.pagination.endCursor });
    expect(beyond).toEqual({
      pagination: { hasNextPage: false, hasPreviousPage: true },
      results: [],
      totalCount: 250,
    });
  });

  it.each([
    [{ first: 101 }, ["pagination", "first"]],
    [{ last: 0 }, ["pagination", "last"]],
    [{ first: 1.5 }, ["pagination", "first"]],
    [{ first: 10, last: 10 }, ["pagination", "last"]],
    [{ after: "not-a-cursor" }, ["pagination", "after"]],
    [{ last: 5, before: Buffer.from('{"id":"drop table"}').toString("base64url") }, ["pagination", "before"]],
  ])("refuses pagination %j with BAD_REQUEST naming %j", async (pagination, path) => {
    const result = await callRpc(weft.url, "projects.list", { pagination }, { token: owner.credential });
    expect(result.status).toBe(400);
    expect(result.json).toMatchObject({
      code: "BAD_REQUEST",
      data: { issues: expect.arrayContaining([expect.objectContaining({ path, message: expect.any(String) })]) },
    });
  });

  it("serves the largest page of 100", async () => {
    expect((await list({ first: 100 })).results.length).toBe(100);
  });
});
