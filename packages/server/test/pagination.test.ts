import { describe, expect, it } from "vitest";
import { fetchKeysetPage, type PageRequest, sliceOfSortedList } from "../src/db/keyset-page.ts";
import { fetchTimestampPage } from "../src/db/timestamp-cursor-page.ts";
import { idCursor, timestampCursor } from "../src/rpc/pagination.ts";

const numbers = Array.from({ length: 10 }, (_, index) => index);
const compare = (row: number, key: number) => row - key;

function pageOfNumbers(request: PageRequest<number>) {
  return fetchKeysetPage({ request, selectSlice: async (slice) => sliceOfSortedList(numbers, compare, slice) });
}

describe("keyset pages of a sorted list", () => {
  it("reads forward after a cursor, knowing what lies on both sides", async () => {
    expect(await pageOfNumbers({ direction: "forward", size: 3, cursor: 2 })).toEqual({
      rows: [3, 4, 5],
      hasNextPage: true,
      hasPreviousPage: true,
      totalCount: 10,
    });
  });

  it("reads backward before a cursor, in ascending order", async () => {
    expect(await pageOfNumbers({ direction: "backward", size: 3, cursor: 2 })).toEqual({
      rows: [0, 1],
      hasNextPage: true,
      hasPreviousPage: false,
      totalCount: 10,
    });
  });

  it("reads the last page without a cursor", async () => {
    expect(await pageOfNumbers({ direction: "backward", size: 4, cursor: undefined })).toEqual({
      rows: [6, 7, 8, 9],
      hasNextPage: false,
      hasPreviousPage: true,
      totalCount: 10,
    });
  });

  it("answers an empty page past the end with the total still counted", async () => {
    expect(await pageOfNumbers({ direction: "forward", size: 4, cursor: 9 })).toEqual({
      rows: [],
      hasNextPage: false,
      hasPreviousPage: true,
      totalCount: 10,
    });
  });
});

describe("timestamp pages", () => {
  it("names the last row of a full page as the next cursor, and none on the last page", async () => {
    const rows = [5, 4, 3];
    const page = (limit: number) =>
      fetchTimestampPage({
        request: { limit, after: undefined },
        selectRows: async (_after, count) => rows.slice(0, count),
        cursorOf: (row) => ({ at: new Date(row), id: `exe_${row}` }),
      });
    expect(await page(2)).toEqual({ rows: [5, 4], next: { at: new Date(4), id: "exe_4" } });
    expect(await page(3)).toEqual({ rows: [5, 4, 3], next: null });
  });
});

describe("cursors", () => {
  const id = "exe_01jd0000000000000000000000";

  it("round-trip an id and an (instant, id)", () => {
    expect(idCursor.decode(idCursor.encode(id))).toBe(id);
    const at = new Date("2026-03-01T12:00:00.123Z");
    expect(timestampCursor.decode(timestampCursor.encode({ at, id }))).toEqual({ at, id });
  });

  it.each([
    ["a cursor of another list", idCursor.encode(id)],
    ["an instant PostgreSQL cannot store", Buffer.from(`0000-01-01T00:00:00.000Z|${id}`).toString("base64url")],
    ["an id with a NUL", Buffer.from("2026-01-01T00:00:00.000Z|exe_\u0000").toString("base64url")],
    ["a third part", Buffer.from(`2026-01-01T00:00:00.000Z|${id}|x`).toString("base64url")],
    ["no instant", Buffer.from(`|${id}`).toString("base64url")],
  ])("refuse as a timestamp cursor %s", (_, cursor) => {
    expect(timestampCursor.decode(cursor)).toBeUndefined();
  });

  it.each([
    ["a timestamp cursor", timestampCursor.encode({ at: new Date(0), id })],
    ["JSON that is not an object", Buffer.from("[1]").toString("base64url")],
    ["an id that is not one", Buffer.from('{"id":"drop table"}').toString("base64url")],
  ])("refuse as an id cursor %s", (_, cursor) => {
    expect(idCursor.decode(cursor)).toBeUndefined();
  });
});
