/** A seeded pseudo-random source (mulberry32): the same seed replays the same fault schedule. */
export interface SeededRandom {
  seed: number;
  /** A number in [0, 1). */
  next(): number;
  /** An integer in [low, high]. */
  between(low: number, high: number): number;
}

export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return { seed, next, between: (low, high) => low + Math.floor(next() * (high - low + 1)) };
}
