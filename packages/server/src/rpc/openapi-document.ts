import { type OpenAPI, OpenAPIGenerator } from "@orpc/openapi";
import { contract, spanSchema } from "@weft/contract";
import { contractSchemaConverter } from "./contract-schema-converter.ts";
import { procedureBodyLimitBytes } from "./procedure-body-limits.ts";
import { protectedResourceMetadataUrl } from "./protected-resource-metadata.ts";

const jsonValueRef = "#/components/schemas/JsonValue";

/**
 * Any JSON value, written by hand: the converter unrolls zod's recursive JSON schema two levels and
 * ends in empty `{}` branches. An array's items are left unconstrained rather than referring back:
 * openapi-typescript turns a union whose array branch names the union itself into a type that
 * TypeScript refuses as circular. Objects refer back, which it handles.
 */
const jsonValueComponent = {
  description: "Any JSON value.",
  anyOf: [
    { type: "string" },
    { type: "number" },
    { type: "boolean" },
    { type: "null" },
    { type: "array", items: { description: "Any JSON value." } },
    { type: "object", additionalProperties: { $ref: jsonValueRef } },
  ],
} satisfies OpenAPI.SchemaObject;

/** The project publishes no licence of its own; the document says so rather than leaving it blank. */
const license = { name: "Proprietary", identifier: "LicenseRef-Proprietary" };

/** What each status of a procedure means, for readers of the document (oRPC names them only by number). */
const responseDescriptions: Record<string, string> = {
  "200": "The procedure's result.",
  "400": "The input is invalid: `data.issues` lists each problem with the path of its field.",
  "401": "No bearer credential, or one that is unknown, expired or revoked.",
  "403":
    "The credential may not do this: `data.missingScope` names the scope it lacks, which the `WWW-Authenticate` challenge repeats; otherwise its role does not allow it.",
  "404": "The resource does not exist, or this credential cannot see it.",
  "409": "The request is valid but the resource's state forbids it: a name already in use, or a change made meanwhile.",
  "429":
    "Too many requests; back off and retry later: `data.quota` names an exhausted monthly quota, `data.retryAfterSeconds` (and `Retry-After`) when to retry a start refused because the workspace's queue is backlogged.",
  "500": "Unexpected server error; the message quotes the request id.",
  "503":
    "The request cannot be taken now and nothing was done: the database cannot be reached, or executions already queued wait too long for a worker. Retry after `data.retryAfterSeconds` (and `Retry-After`).",
};

function challengeHeader(description: string): OpenAPI.HeaderObject {
  return { description, schema: { type: "string" } };
}

const retryAfterHeader: OpenAPI.HeaderObject = {
  description: "Seconds to wait before sending the request again, when the refusal says (as `data.retryAfterSeconds`).",
  schema: { type: "integer" },
};

function payloadTooLarge(limitBytes: number): OpenAPI.ResponseObject {
  return {
    description: `The request body is larger than ${limitBytes} bytes (${limitBytes / (1024 * 1024)} MiB); nothing was done.`,
    content: {
      "application/json": {
        schema: {
          type: "object",
          properties: {
            defined: { const: false },
            code: { const: "PAYLOAD_TOO_LARGE" },
            status: { const: 413 },
            message: { type: "string" },
          },
          required: ["defined", "code", "status", "message"],
        },
      },
    },
  };
}

/** Adds what the generator cannot know: descriptions, the challenges of 401 and 403, the body limit. */
function describeResponses(operation: OpenAPI.OperationObject, metadataUrl: string): void {
  const responses = operation.responses ?? {};
  for (const [status, response] of Object.entries(responses)) {
    const description = responseDescriptions[status];
    if (description !== undefined && !("$ref" in response)) response.description = description;
  }
  const unauthorized = responses["401"];
  if (unauthorized !== undefined && !("$ref" in unauthorized)) {
    unauthorized.headers = {
      "WWW-Authenticate": challengeHeader(
        `\`Bearer resource_metadata="${metadataUrl}"\`, with \`error="invalid_token"\` when a credential was sent but is not valid (RFC 6750 §3, RFC 9728 §5.1).`,
      ),
    };
  }
  const forbidden = responses["403"];
  if (forbidden !== undefined && !("$ref" in forbidden)) {
    forbidden.headers = {
      "WWW-Authenticate": challengeHeader(
        `When a scope is missing: \`Bearer error="insufficient_scope", scope="<the scope>", resource_metadata="${metadataUrl}"\` (RFC 6750 §3.1).`,
      ),
    };
  }
  for (const status of ["429", "503"]) {
    const response = responses[status];
    if (response !== undefined && !("$ref" in response)) {
      response.headers = { "Retry-After": retryAfterHeader };
    }
  }
  if (operation.operationId !== undefined) {
    responses["413"] = payloadTooLarge(procedureBodyLimitBytes(operation.operationId));
  }
  operation.responses = responses;
}

/**
 * The OpenAPI 3.1 description of the contract, for generating clients in other languages. It
 * describes the plain-JSON endpoints under `{base_url}/api`; TypeScript callers use @weft/client.
 */
export async function generateOpenApiDocument(baseUrl: string): Promise<OpenAPI.Document> {
  const metadataUrl = protectedResourceMetadataUrl(baseUrl);
  const generator = new OpenAPIGenerator({
    schemaConverters: [contractSchemaConverter({ $ref: jsonValueRef })],
  });
  const document = await generator.generate(contract, {
    info: {
      title: "Weft API",
      version: "0.1.0",
      license,
      description:
        "Every operation needs `Authorization: Bearer <credential>`; credentials come from agent registration " +
        `(see ${metadataUrl}).`,
    },
    servers: [{ url: `${baseUrl}/api` }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: { JsonValue: jsonValueComponent },
    },
    // A span's children are spans: as a component it refers to itself instead of being unrolled.
    commonSchemas: { Span: { schema: spanSchema, strategy: "output" } },
  });
  for (const pathItem of Object.values(document.paths ?? {})) {
    for (const method of ["get", "put", "post", "delete", "patch"] as const) {
      const operation = pathItem?.[method];
      if (operation !== undefined) describeResponses(operation, metadataUrl);
    }
  }
  return document;
}
