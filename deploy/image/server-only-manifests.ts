/**
 * Rewrites the manifests copied into the image's dependency stage so that `npm install` brings what
 * the server runs on and nothing else: the workspaces the server imports at run time (itself and
 * the contract), none of the repository's development tools, none of the server's test kit. The
 * versions stay those of package-lock.json, every one of which is pinned.
 */
import { readFileSync, writeFileSync } from "node:fs";

interface Manifest {
  workspaces?: string[];
  devDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
}

const serverWorkspaces = ["packages/contract", "packages/server"];

function rewrite(path: string, change: (manifest: Manifest) => Manifest): void {
  const manifest = JSON.parse(readFileSync(path, "utf8")) as Manifest;
  writeFileSync(path, `${JSON.stringify(change(manifest), null, 2)}\n`);
}

const withoutDevelopment = ({ devDependencies: _tools, scripts: _scripts, ...manifest }: Manifest): Manifest =>
  manifest;

rewrite("package.json", (manifest) => ({ ...withoutDevelopment(manifest), workspaces: serverWorkspaces }));
for (const workspace of serverWorkspaces) rewrite(`${workspace}/package.json`, withoutDevelopment);
