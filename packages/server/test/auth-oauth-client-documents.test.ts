import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getCACertificates, setDefaultCACertificates } from "node:tls";
import {
  answerConsent,
  authorizeUrl,
  callRpc,
  pkcePair,
  requestToken,
  type SmtpSink,
  signInForAuthorization,
  startSmtpSink,
  startTestPlatform,
  type TestPlatform,
} from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const redirectUri = "http://127.0.0.1:9911/callback";
let smtp: SmtpSink;
let server: TestPlatform;
let documentServer: Server;
let documentOrigin: string;
let exemptPort: number;
const documents = new Map<string, unknown>();
const documentRequests: string[] = [];
/** TCP connections the document server accepted, TLS or not. */
let documentConnections = 0;
const defaultCertificates = getCACertificates("default");

/** A TLS listener for `localhost` whose self-signed certificate this process trusts, as clients' hosts are trusted. */
beforeAll(async () => {
  const directory = mkdtempSync(join(tmpdir(), "weft-cimd-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=DNS:localhost",
      "-keyout",
      join(directory, "key.pem"),
      "-out",
      join(directory, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  const cert = readFileSync(join(directory, "cert.pem"), "utf8");
  const key = readFileSync(join(directory, "key.pem"), "utf8");
  rmSync(directory, { recursive: true, force: true });
  setDefaultCACertificates([...defaultCertificates, cert]);
  documentServer = createServer({ key, cert }, (request, response) => {
    documentRequests.push(request.url ?? "");
    const document = documents.get(request.url ?? "");
    if (document === undefined) {
      response.statusCode = 404;
      response.end();
      return;
    }
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify(document));
  });
  documentServer.on("connection", () => {
    documentConnections += 1;
  });
  await new Promise<void>((resolve) => documentServer.listen(0, "127.0.0.1", resolve));
  exemptPort = (documentServer.address() as AddressInfo).port;
  documentOrigin = `https://localhost:${exemptPort}`;
  smtp = await startSmtpSink();
  server = await startTestPlatform({
    env: {
      SMTP_URL: smtp.url,
      WEFT_SANDBOX_EGRESS_ALLOW: `localhost:${exemptPort}`,
      WEFT_RATE_LIMIT_REGISTER: "10000",
    },
    // Every name is this machine here; only the operator's exemption lets the fetch through.
    resolveHost: async () => ["127.0.0.1"],
  });
}, 120_000);

afterAll(async () => {
  await server.stop();
  await smtp.close();
  await new Promise((resolve) => documentServer.close(resolve));
  setDefaultCACertificates(defaultCertificates);
});

function publish(path: string, document: Record<string, unknown>): string {
  const clientId = `${documentOrigin}${path}`;
  documents.set(path, { client_id: clientId, ...document });
  return clientId;
}

function authorizeWith(clientId: string, overrides: Record<string, string> = {}) {
  const { verifier, challenge } = pkcePair();
  const url = authorizeUrl(server.url, {
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "doc-state",
    ...overrides,
  });
  return { url, verifier };
}

describe("client ID metadata documents", () => {
  it("are advertised in the authorization server metadata", async () => {
    const metadata = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(metadata.client_id_metadata_document_supported).toBe(true);
  });

  it("let a client named by its document's URL complete the flow, shown with the document's host", async () => {
    const clientId = publish("/clients/editor.json", {
      client_name: "Doc Editor",
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: "none",
    });
    const { url, verifier } = authorizeWith(clientId);
    const session = await signInForAuthorization(url, "doc-person@example.com", smtp);
    expect(session.consentHtml).toContain(`Doc Editor (localhost:${exemptPort})`);
    const answer = await answerConsent(url, session, "approve");
    const code = answer.location?.searchParams.get("code") as string;
    const token = await requestToken(server.url, {
      grant_type: "authorization_code",
      client_id: clientId,
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    expect(token.status).toBe(200);
    const agents = await callRpc(server.url, "agents.list", {}, { token: token.body.access_token });
    expect(agents.json).toMatchObject({ results: [{ type: "oauth-client", agent: { clientId } }] });
  });

  it.each([
    [
      "names another client_id",
      { client_id: "https://elsewhere.example.com/client.json", redirect_uris: [redirectUri] },
    ],
    ["has a client secret", { client_secret: "s3cret-value", redirect_uris: [redirectUri] }],
    [
      "asks for a secret-based auth method",
      { token_endpoint_auth_method: "client_secret_post", redirect_uris: [redirectUri] },
    ],
    ["lacks redirect_uris", {}],
    ["lists another redirect URI only", { redirect_uris: ["https://app.example.com/cb"] }],
  ])("refuse a document that %s: an error page, no redirect", async (_case, document) => {
    const path = `/bad/${documents.size}.json`;
    const clientId = `${documentOrigin}${path}`;
    documents.set(path, { client_id: clientId, ...document });
    const response = await fetch(authorizeWith(clientId).url, { redirect: "manual" });
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
  });

  it("are never fetched from an address that is not public and not exempted", async () => {
    const before = documentRequests.length;
    const clientId = `https://internal.example:${exemptPort}/clients/editor.json`;
    const response = await fetch(authorizeWith(clientId).url, { redirect: "manual" });
    expect(response.status).toBe(400);
    const token = await requestToken(server.url, {
      grant_type: "authorization_code",
      client_id: clientId,
      code: "woc_x",
      redirect_uri: redirectUri,
      code_verifier: pkcePair().verifier,
    });
    expect(token.body.error).toBe("invalid_client");
    expect(documentRequests.length).toBe(before);
  });

  it("are never fetched from a literal private address, which skips the name lookup: not even a connection", async () => {
    const before = documentConnections;
    const clientId = `https://127.0.0.1:${exemptPort}/clients/editor.json`;
    const response = await fetch(authorizeWith(clientId).url, { redirect: "manual" });
    expect(response.status).toBe(400);
    expect(documentConnections).toBe(before);
  });
});
