import { monotonicFactory } from "ulid";
import type { Clock } from "./clock.ts";
import { idRandomness } from "./random-pool.ts";

/**
 * Prefixes of every id the platform hands out. A prefix tells a reader (and a support engineer
 * reading a log line) what kind of thing an id names; the ULID body keeps ids sortable by creation
 * time, which keyset pagination relies on.
 */
export const idPrefixes = {
  account: "acc",
  workspace: "wsp",
  credential: "cred",
  registration: "reg",
  project: "prj",
  deployment: "dep",
  execution: "exe",
  step: "stp",
  span: "spn",
  auditEvent: "evt",
} as const;

export type IdKind = keyof typeof idPrefixes;

export type IdGenerator = (kind: IdKind) => string;

/** Ids are lower-case ULIDs: lower-casing Crockford base32 keeps their byte order. */
export function createIdGenerator(clock: Clock): IdGenerator {
  const nextUlid = monotonicFactory(idRandomness.unitFraction);
  return (kind) => `${idPrefixes[kind]}_${nextUlid(clock.now().getTime()).toLowerCase()}`;
}

const idPattern = /^([a-z]+)_[0-9a-hjkmnp-tv-z]{26}$/;

export function isIdOfKind(value: string, kind: IdKind): boolean {
  const match = idPattern.exec(value);
  return match !== null && match[1] === idPrefixes[kind];
}
