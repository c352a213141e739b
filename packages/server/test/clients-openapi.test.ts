import { startTestPlatform, type TestPlatform } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultBodyLimitBytes } from "../src/http/body-limit.ts";
import { generateOpenApiDocument } from "../src/rpc/openapi-document.ts";
import { deploymentUploadBodyLimitBytes } from "../src/rpc/procedure-body-limits.ts";

interface Response {
  description: string;
  headers?: Record<string, { description: string; schema: unknown }>;
  content?: Record<string, { schema: unknown }>;
}

interface Document {
  info: { license?: { name: string; identifier?: string } };
  paths: Record<string, { post: { operationId: string; responses: Record<string, Response> } }>;
  components: { schemas: Record<string, unknown> };
}

let document: Document;

beforeAll(async () => {
  document = (await generateOpenApiDocument("https://weft.example.com")) as unknown as Document;
});

function operations() {
  return Object.values(document.paths).map((item) => item.post);
}

/** Every `anyOf`/`oneOf` branch of the document that accepts anything: an empty schema. */
function emptyBranches(value: unknown, path = "#"): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => emptyBranches(item, `${path}/${index}`));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => {
    const here = `${path}/${key}`;
    const empty =
      (key === "anyOf" || key === "oneOf") && Array.isArray(child)
        ? child.flatMap((branch, index) =>
            typeof branch === "object" && branch !== null && Object.keys(branch).length === 0
              ? [`${here}/${index}`]
              : [],
          )
        : [];
    return [...empty, ...emptyBranches(child, here)];
  });
}

describe("the OpenAPI document", () => {
  it("describes every response in words, never by its status alone", () => {
    for (const operation of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(response.description, `${operation.operationId} ${status}`).not.toMatch(/^(\d{3}|OK)$/);
      }
    }
    expect(document.paths["/projects/create"]?.post.responses["404"]?.description).toBe(
      "The resource does not exist, or this credential cannot see it.",
    );
  });

  it("documents the WWW-Authenticate challenge of 401 and of 403", () => {
    for (const operation of operations()) {
      expect(operation.responses["401"]?.headers?.["WWW-Authenticate"]).toEqual({
        description: expect.stringContaining(
          'Bearer resource_metadata="https://weft.example.com/.well-known/oauth-protected-resource"',
        ),
        schema: { type: "string" },
      });
      expect(operation.responses["403"]?.headers?.["WWW-Authenticate"]?.description).toContain(
        'error="insufficient_scope"',
      );
    }
  });

  it("lists 413 with each procedure's own body limit", () => {
    for (const operation of operations()) {
      const limit =
        operation.operationId === "deployments.create" ? deploymentUploadBodyLimitBytes : defaultBodyLimitBytes;
      expect(operation.responses["413"]?.description, operation.operationId).toContain(`larger than ${limit} bytes`);
    }
    expect(document.paths["/deployments/create"]?.post.responses["413"]?.description).toContain("(12 MiB)");
    expect(document.paths["/projects/list"]?.post.responses["413"]?.description).toContain("(1 MiB)");
  });

  it("describes recursive values once, as components, with no branch that accepts anything", () => {
    expect(emptyBranches(document)).toEqual([]);
    expect(document.components.schemas.JsonValue).toMatchObject({
      anyOf: expect.arrayContaining([
        { type: "object", additionalProperties: { $ref: "#/components/schemas/JsonValue" } },
      ]),
    });
    const createDeployment = JSON.stringify(document.paths["/deployments/create"]?.post);
    expect(createDeployment).toContain('"additionalProperties":{"$ref":"#/components/schemas/JsonValue"}');
    expect(document.components.schemas.Span).toMatchObject({
      properties: { children: { type: "array", items: { $ref: "#/components/schemas/Span" } } },
    });
  });

  it("names a licence", () => {
    expect(document.info.license).toEqual({ name: "Proprietary", identifier: "LicenseRef-Proprietary" });
  });
});

describe("/openapi.json", () => {
  let weft: TestPlatform;

  beforeAll(async () => {
    weft = await startTestPlatform();
  });

  afterAll(async () => {
    await weft.stop();
  });

  it("serves the document built for this instance", async () => {
    const served = await (await fetch(`${weft.url}/openapi.json`)).json();
    expect(served).toEqual(JSON.parse(JSON.stringify(await generateOpenApiDocument(weft.url))));
  });
});
