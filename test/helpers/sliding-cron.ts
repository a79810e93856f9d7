// The cron tools of status for a sweep that asks for the same schedules at instants a few minutes
// apart: each schedule's runs are enumerated once over a span around the instants asked for, and
// each answer is cut from them, not enumerated again from croner (croner in a named time zone
// takes about 0.25 ms a run, and status reads every schedule's runs over nine days at every step).
//
// The enumeration is croner's own (the real runsBetween over a wider span): a run list from an
// earlier start passes through the same runs (croner's next run after a run is the next one), so
// the runs in [from, to] and the first run after `from` are those the real tools give. `verify`
// checks that claim: while it is on, every answer is computed both ways and must be equal (the
// sweep turns it on for one step an hour, clock-change hours included).
import type { CronTools } from '../../src/fleet/schedule.js';

/** How far past the asked span a schedule's runs are enumerated: a day of 5-minute steps asks again rarely. */
const AHEAD_MS = 2 * 86_400_000;
/** Enumerations longer than this are not kept: the real tools answer. */
const MAX_KEPT = 20_000;

interface Span {
  lo: number;
  hi: number;
  runs: number[];
}

export interface SlidingCronTools extends CronTools {
  /** When true, every answer is also asked of the real tools and must be the same (else it throws). */
  verify: boolean;
  /** Answers compared with the real tools since the start. */
  verified: number;
}

export function slidingCronTools(real: CronTools): SlidingCronTools {
  const spans = new Map<string, Span | null>();
  const key = (cron: string, timezone: string | null | undefined) => `${timezone ?? ''}\u0000${cron}`;
  /** The schedule's runs over at least [from, to], or null when the real tools must answer (unreadable, too many). */
  const spanOver = (cron: string, timezone: string | null | undefined, from: number, to: number): Span | null => {
    const k = key(cron, timezone);
    const have = spans.get(k);
    if (have && have.lo <= from && to <= have.hi) return have;
    const lo = from;
    const hi = to + AHEAD_MS;
    const runs = real.runsBetween(cron, timezone, new Date(lo), new Date(hi), MAX_KEPT);
    const span = runs && runs.length < MAX_KEPT ? { lo, hi, runs: runs.map((d) => d.getTime()) } : null;
    spans.set(k, span);
    return span;
  };
  const same = (what: string, mine: unknown, theirs: unknown) => {
    tools.verified++;
    if (JSON.stringify(mine) !== JSON.stringify(theirs)) {
      throw new Error(`sliding cron tools: ${what} answered ${JSON.stringify(mine)}, croner ${JSON.stringify(theirs)}`);
    }
  };
  const tools: SlidingCronTools = {
    verify: false,
    verified: 0,
    words: (cron, timezone) => real.words(cron, timezone),
    nextRun(cron, timezone, from) {
      const t = from.getTime();
      // The first run after `from` lies in the span when one run there is after it.
      const span = spanOver(cron, timezone, t, t);
      const next = span?.runs.find((r) => r > t);
      const mine = span && next !== undefined ? new Date(next) : real.nextRun(cron, timezone, from);
      if (tools.verify) same(`nextRun(${cron}, ${timezone}, ${from.toISOString()})`, mine, real.nextRun(cron, timezone, from));
      return mine;
    },
    runsBetween(cron, timezone, from, to, limit = 100_000) {
      const span = spanOver(cron, timezone, from.getTime(), to.getTime());
      const mine = span
        ? span.runs
            .filter((r) => r >= from.getTime() && r <= to.getTime())
            .slice(0, limit)
            .map((r) => new Date(r))
        : real.runsBetween(cron, timezone, from, to, limit);
      if (tools.verify) same(`runsBetween(${cron}, ${timezone}, ${from.toISOString()}, ${to.toISOString()})`, mine, real.runsBetween(cron, timezone, from, to, limit));
      return mine;
    },
  };
  return tools;
}
