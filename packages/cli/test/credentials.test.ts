import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  credentialsPath,
  readCredentials,
  removeCredentials,
  resolveToken,
  writeCredentials,
} from "../src/credentials.ts";
import { CliError } from "../src/errors.ts";

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "weft-credentials-"));
}

const mode = (path: string) => statSync(path).mode & 0o777;

describe("credentials file", () => {
  it("lives under $XDG_CONFIG_HOME/weft, else ~/.config/weft, ignoring a relative XDG_CONFIG_HOME", () => {
    const home = tempDir();
    const previousHome = process.env.HOME;
    process.env.HOME = home;
    try {
      expect(credentialsPath({ XDG_CONFIG_HOME: "/xdg" })).toBe("/xdg/weft/credentials");
      expect(credentialsPath({})).toBe(join(home, ".config", "weft", "credentials"));
      expect(credentialsPath({ XDG_CONFIG_HOME: "relative/dir" })).toBe(join(home, ".config", "weft", "credentials"));
    } finally {
      process.env.HOME = previousHome;
    }
  });

  it("is written as JSON with mode 0600 in a directory created with mode 0700, leaving no temporary file", () => {
    const path = join(tempDir(), "config", "weft", "credentials");
    writeCredentials(path, { accessToken: "weft_first" });
    writeCredentials(path, { accessToken: "weft_second" });
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ accessToken: "weft_second" });
    expect(mode(path)).toBe(0o600);
    expect(mode(join(path, ".."))).toBe(0o700);
    expect(readdirSync(join(path, ".."))).toEqual(["credentials"]);
    expect(readCredentials(path)).toEqual({ accessToken: "weft_second" });
  });

  it("reads a missing file as no credential, and refuses a malformed one with the fix", () => {
    const path = join(tempDir(), "credentials");
    expect(readCredentials(path)).toBeUndefined();
    writeFileSync(path, "not json");
    expect(() => readCredentials(path)).toThrow(CliError);
    expect(() => readCredentials(path)).toThrow(/not valid JSON/);
  });

  it("removes the file, reporting whether there was one", () => {
    const path = join(tempDir(), "weft", "credentials");
    writeCredentials(path, { accessToken: "weft_x" });
    expect(removeCredentials(path)).toBe(true);
    expect(removeCredentials(path)).toBe(false);
  });

  it("lets WEFT_TOKEN override the file", () => {
    const xdg = tempDir();
    writeCredentials(join(xdg, "weft", "credentials"), { accessToken: "weft_from_file" });
    expect(resolveToken({ XDG_CONFIG_HOME: xdg })).toMatchObject({ token: "weft_from_file", source: "file" });
    expect(resolveToken({ XDG_CONFIG_HOME: xdg, WEFT_TOKEN: "weft_from_env" })).toMatchObject({
      token: "weft_from_env",
      source: "WEFT_TOKEN",
    });
    expect(resolveToken({ XDG_CONFIG_HOME: tempDir() })).toBeUndefined();
  });
});
