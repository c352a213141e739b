import { OpenAPIGenerator } from "@orpc/openapi";
import { ZodToJsonSchemaConverter } from "@orpc/zod/zod4";
import { contract } from "@weft/contract";

/**
 * The OpenAPI 3.1 description of the contract, for generating clients in other languages. It
 * describes the plain-JSON endpoints under `{base_url}/api`; TypeScript callers use @weft/client.
 */
export async function generateOpenApiDocument(baseUrl: string): Promise<unknown> {
  const generator = new OpenAPIGenerator({ schemaConverters: [new ZodToJsonSchemaConverter()] });
  return generator.generate(contract, {
    info: {
      title: "Weft API",
      version: "0.1.0",
      description:
        "Every operation needs `Authorization: Bearer <credential>`; credentials come from agent registration " +
        "(see /.well-known/oauth-protected-resource).",
    },
    servers: [{ url: `${baseUrl}/api` }],
    security: [{ bearer: [] }],
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  });
}
