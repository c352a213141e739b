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
  invitation: "inv",
  federationPolicy: "fed",
  oauthClient: "cli",
  studioSession: "sts",
  alertDelivery: "alr",
  event: "evn",
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

/** The longest id body accepted in a path; generated ids have 26 characters. */
const maxIdBodyLength = 40;

/**
 * Whether a value read from a path or a query could be an id of this kind at all: its prefix, then
 * lower-case letters and digits. Looser than `isIdOfKind` (ids made by hand in tests and imports
 * need not be ULIDs), but strict enough that `%00`, a lone surrogate or a megabyte of text is
 * answered "not found" before it reaches a database query that would fail on it.
 */
export function hasIdShape(value: string, kind: IdKind): boolean {
  const prefix = `${idPrefixes[kind]}_`;
  return (
    value.startsWith(prefix) &&
    value.length <= prefix.length + maxIdBodyLength &&
    /^[0-9a-z]+$/.test(value.slice(prefix.length))
  );
}
