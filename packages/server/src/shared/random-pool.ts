import { randomFillSync } from "node:crypto";

/**
 * Random bytes for identifiers (ULIDs, trace and span ids), drawn from the CSPRNG a block at a time.
 * Making an id asked the crypto binding for one byte at a time (the ULID library draws each of 16
 * characters separately) or a few bytes per call, which showed in the profile of every submission.
 * Not for secrets: those take their bytes straight from `randomBytes`.
 */
export function createIdRandomness(blockBytes = 4096) {
  const block = Buffer.alloc(blockBytes);
  let offset = blockBytes;
  const take = (count: number): Buffer => {
    if (offset + count > blockBytes) {
      randomFillSync(block);
      offset = 0;
    }
    offset += count;
    return block.subarray(offset - count, offset);
  };
  return {
    /** `count` random bytes as lower-case hex (`count` at most the block size). */
    hex: (count: number): string => take(count).toString("hex"),
    /** A number in [0, 1) with 8 random bits, the PRNG shape the ULID library asks for. */
    unitFraction: (): number => (take(1)[0] ?? 0) / 256,
  };
}

/** One pool per process for every id made in it. */
export const idRandomness = createIdRandomness();
