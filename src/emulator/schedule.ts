// When schedules run: every occurrence of a cron expression in its own time
// zone, computed by croner (daylight-saving changes included: a wall-clock time
// that does not exist that day runs at the next one that does, a repeated one
// runs once). The seed lays its history on these; the runs of a schedule are
// kept per expression, so seeding again at a nearby instant (a test sweeping
// the clock) only computes the runs it has not seen yet.
import { Cron } from 'croner';
import { cronZone } from '../util/cron-zone.js';

interface Span {
  schedule: Cron;
  from: number;
  to: number;
  /** Every run in [from, to], oldest first, epoch ms. */
  runs: number[];
  /** The first run after `to`, so that moving `to` a little computes nothing until it passes. */
  next: number;
}

const spans = new Map<string, Span>();

/** The runs in [from, to], and the first after `to`. croner answers the first run strictly after the instant it is given. */
function enumerate(schedule: Cron, from: number, to: number): { runs: number[]; next: number } {
  const runs: number[] = [];
  let next = schedule.nextRun(new Date(from - 1));
  for (; next && next.getTime() <= to; next = schedule.nextRun(next)) runs.push(next.getTime());
  return { runs, next: next ? next.getTime() : Infinity };
}

/** Index of the first run >= t. */
function firstAtOrAfter(runs: readonly number[], t: number): number {
  let lo = 0;
  let hi = runs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (runs[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The runs of `cron` in time zone `zone` from `from` to `to` (both included, epoch ms), oldest first. */
export function runsBetween(cron: string, zone: string, from: number, to: number): number[] {
  const key = `${zone}\n${cron}`;
  let span = spans.get(key);
  if (!span || to < span.from || from > span.to) {
    const schedule = span?.schedule ?? new Cron(cron, { ...cronZone(zone), paused: true });
    span = { schedule, from, to, ...enumerate(schedule, from, to) };
    spans.set(key, span);
  } else {
    if (from < span.from) {
      span.runs = [...enumerate(span.schedule, from, span.from - 1).runs, ...span.runs];
      span.from = from;
    }
    if (to > span.to) {
      if (span.next <= to) {
        const more = enumerate(span.schedule, span.next, to);
        span.runs.push(...more.runs);
        span.next = more.next;
      }
      span.to = to;
    }
  }
  return span.runs.slice(firstAtOrAfter(span.runs, from), firstAtOrAfter(span.runs, to + 1));
}
