import { type CountGrain, countGrains } from "../db/schema/index.ts";

const grainMs: Record<CountGrain, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** Whole buckets of one grain, [from, to), read from `execution_counts`. */
export interface CountSegment {
  grain: CountGrain;
  from: Date;
  to: Date;
}

/** How a range of creation times is counted: whole buckets from the counts, the rest directly. */
export interface RangeCover {
  /** Whole buckets, each at the coarsest grain that fits and is no coarser than asked. */
  segments: CountSegment[];
  /** The parts finer than a minute at either end (at most two), counted from the executions. */
  ends: Array<{ from: Date; to: Date }>;
}

/**
 * Splits [from, to) into whole UTC buckets, coarsest first, down to minutes, and the sub-minute
 * ends. No segment is coarser than `coarsest`, so each lies inside one bucket of that grain and a
 * reader can place it by its start. UTC buckets of these grains are fixed lengths from the epoch.
 */
export function coverRange(from: Date, to: Date, coarsest: CountGrain): RangeCover {
  const cover: RangeCover = { segments: [], ends: [] };
  const split = (start: number, end: number, level: number): void => {
    if (start >= end) return;
    const grain = countGrains[level];
    if (grain === undefined) {
      cover.ends.push({ from: new Date(start), to: new Date(end) });
      return;
    }
    const size = grainMs[grain];
    const first = Math.ceil(start / size) * size;
    const last = Math.floor(end / size) * size;
    if (first >= last) {
      split(start, end, level - 1);
      return;
    }
    split(start, first, level - 1);
    cover.segments.push({ grain, from: new Date(first), to: new Date(last) });
    split(last, end, level - 1);
  };
  split(from.getTime(), to.getTime(), countGrains.indexOf(coarsest));
  return cover;
}
