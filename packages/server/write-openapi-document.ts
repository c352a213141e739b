/**
 * Writes the OpenAPI document a platform serves to the file named by the first argument, for linting
 * it in CI (`npm run lint:openapi`) without starting a server. The base URL is a reserved name: the
 * document is the same for every instance but for its addresses.
 */
import { writeFileSync } from "node:fs";
import { generateOpenApiDocument } from "./src/rpc/openapi-document.ts";

const target = process.argv[2];
if (target === undefined) {
  console.error("usage: node packages/server/write-openapi-document.ts <file>");
  process.exit(2);
}
writeFileSync(target, `${JSON.stringify(await generateOpenApiDocument("https://weft.invalid"), null, 2)}\n`);
