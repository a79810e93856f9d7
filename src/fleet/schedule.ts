// A schedule's cron expression in words and its next run, in the schedule's
// time zone. croner computes run times (time zones and daylight-saving changes
// included) and cronstrue writes the words; both load only when status runs.
import { cronZone } from '../util/cron-zone.js';

export interface CronTools {
  /**
   * "daily at 02:00 Europe/Paris", "at 00:15, only on Sunday UTC", "every 15 minutes UTC";
   * undefined when the expression cannot be read.
   */
  words(cron: string, timezone?: string | null): string | undefined;
  /** The first run strictly after `from`, or undefined (unreadable expression or time zone, or no run ahead). */
  nextRun(cron: string, timezone: string | null | undefined, from: Date): Date | undefined;
  /**
   * Every run in [from, to] (both included), in order, as croner computes them in the time zone
   * (a wall-clock time skipped by a spring-forward change comes at the first minute after the gap;
   * a time repeated by a fall-back change comes once). Undefined when the expression or zone is
   * unreadable; at most `limit` runs (default 100 000), so a `* * * * *` over years stays bounded.
   */
  runsBetween(cron: string, timezone: string | null | undefined, from: Date, to: Date, limit?: number): Date[] | undefined;
}

/** The service's schedules default to UTC (jobs create sends UTC when no --timezone is given). */
export const DEFAULT_TIMEZONE = 'UTC';

type Describe = (expression: string, options: Record<string, unknown>) => string;
type CronConstructor = typeof import('croner').Cron;

let loaded: Promise<CronTools> | undefined;

export function loadCronTools(): Promise<CronTools> {
  loaded ??= (async () => {
    const [croner, cronstrue] = await Promise.all([import('croner'), import('cronstrue')]);
    // cronstrue is CommonJS: its toString sits on the default export, whichever
    // way the loader (node, vite, esbuild) wraps module.exports.
    const describe = (cronstrue as unknown as { default: { toString: Describe } }).default.toString;
    return makeCronTools(croner.Cron, describe);
  })();
  return loaded;
}

const ANY = new Set(['*', '?']);
// Nicknames croner and cronstrue both read that mean "once a day".
const DAILY_NICKNAMES = new Set(['@daily', '@midnight']);
/** Schedules whose Cron and words are kept (a fleet has a few; a bigger one starts over). */
const CACHED_SCHEDULES = 1000;

function makeCronTools(Cron: CronConstructor, describe: Describe): CronTools {
  // Without a function to call, croner schedules nothing: it only computes. Such a Cron never runs, so
  // its nextRun(from) depends on the expression, the zone and `from` alone: one Cron per schedule serves
  // every call (status asks for each job's runs and next run; parsing the expression cost as much as the runs).
  const crons = new Map<string, InstanceType<CronConstructor>>();
  const paused = (cron: string, timezone: string | null | undefined) => {
    const expression = cron.trim();
    const zone = timezone?.trim() || DEFAULT_TIMEZONE;
    const key = `${zone}\u0000${expression}`;
    let job = crons.get(key);
    if (!job) {
      // An unreadable expression or zone throws here, every time it is asked for.
      job = new Cron(expression, { ...cronZone(zone), paused: true });
      if (crons.size >= CACHED_SCHEDULES) crons.clear();
      crons.set(key, job);
    }
    return job;
  };
  const describeSchedule = (cron: string, timezone: string | null | undefined): string | undefined => {
    const expression = cron.trim();
    if (!expression) return undefined;
    let text: string;
    try {
      text = describe(expression, { use24HourTimeFormat: true, throwExceptionOnParseError: true, verbose: false });
    } catch {
      return undefined;
    }
    const fields = expression.split(/\s+/);
    // cronstrue says "At 02:00" for every day; with day of month, month and
    // day of week all open, that is what people call daily.
    const everyDay =
      DAILY_NICKNAMES.has(expression.toLowerCase()) || (fields.length === 5 && fields.slice(2).every((f) => ANY.has(f)));
    let phrase = text.charAt(0).toLowerCase() + text.slice(1);
    if (everyDay && /^at \d/.test(phrase) && !phrase.includes(',')) phrase = `daily ${phrase}`;
    return `${phrase} ${timezone?.trim() || DEFAULT_TIMEZONE}`;
  };
  // The words of a schedule depend on its expression and zone alone.
  const said = new Map<string, string | undefined>();
  return {
    words(cron, timezone) {
      const key = `${timezone ?? ''}\u0000${cron}`;
      if (said.has(key)) return said.get(key);
      const text = describeSchedule(cron, timezone);
      if (said.size >= CACHED_SCHEDULES) said.clear();
      said.set(key, text);
      return text;
    },
    nextRun(cron, timezone, from) {
      try {
        return paused(cron, timezone).nextRun(from) ?? undefined;
      } catch {
        return undefined;
      }
    },
    runsBetween(cron, timezone, from, to, limit = 100_000) {
      let job: InstanceType<CronConstructor>;
      try {
        job = paused(cron, timezone);
      } catch {
        return undefined;
      }
      const runs: Date[] = [];
      // nextRun is strictly after its argument: start a millisecond early so `from` itself counts.
      let at: Date | null = new Date(from.getTime() - 1);
      while (runs.length < limit && (at = job.nextRun(at)) && at.getTime() <= to.getTime()) runs.push(at);
      return runs;
    },
  };
}

// ---------------------------------------------------------------------------
// Staleness from the schedule

/** A schedule as staleness reads it: a cron expression in its time zone (a job's schedule). */
export interface ScheduleLike {
  cron: string | null;
  timezone?: string | null;
  /** Paused, inactive, ...: it makes no runs. */
  stopped?: string | undefined;
}

/**
 * How far around `now` the runs are read to find the interval: eight days back and one ahead see a
 * whole week (a weekly job, weekdays only); a schedule with fewer than three runs there (monthly) is
 * read over two months back. (croner takes about 0.25 ms a run in a time zone: a 6-hourly schedule
 * over two months costs 60 ms, over nine days 9 ms.)
 */
const INTERVAL_BACK_MS = 8 * 86_400_000;
const INTERVAL_AHEAD_MS = 86_400_000;
const INTERVAL_WIDE_BACK_MS = 62 * 86_400_000;
const INTERVAL_RUN_LIMIT = 20_000;

/**
 * The runs of a schedule in [from, to]. THE place where a schedule becomes runs for staleness: today from
 * the cron expression and time zone (croner); a schedule given by frequency and run_offset (issue 30) is
 * to be read here too, so every judge of staleness follows. Undefined when it cannot be read.
 */
export function scheduleRuns(schedule: ScheduleLike, tools: CronTools, from: Date, to: Date): Date[] | undefined {
  if (schedule.stopped || schedule.cron === null || !schedule.cron.trim()) return undefined;
  return tools.runsBetween(schedule.cron, schedule.timezone, from, to, INTERVAL_RUN_LIMIT);
}

/** Intervals already computed, by schedules and instant: a fleet's jobs share a few schedules. */
const intervals = new Map<string, number | undefined>();

/**
 * The interval of a job's schedules around `now`, in ms: the longest gap between consecutive runs of all its
 * active schedules together, over the week and a day around now (a weekly job: 7 days; weekdays only: 3 days;
 * daily: 24 h, 25 h across a fall-back night), two months for a sparser one. Undefined when no active schedule
 * can be read.
 */
export function scheduleInterval(schedules: readonly ScheduleLike[], tools: CronTools, now: number): number | undefined {
  const key = JSON.stringify([now, schedules.map((s) => [s.cron, s.timezone ?? null, s.stopped ?? null])]);
  if (intervals.has(key)) return intervals.get(key);
  const read = (back: number) =>
    schedules.flatMap((s) => scheduleRuns(s, tools, new Date(now - back), new Date(now + INTERVAL_AHEAD_MS)) ?? []).map((d) => d.getTime());
  let runs = read(INTERVAL_BACK_MS);
  if (runs.length < 3) runs = read(INTERVAL_WIDE_BACK_MS);
  let longest: number | undefined;
  if (runs.length >= 2) {
    runs.sort((a, b) => a - b);
    let gap = 0;
    for (let i = 1; i < runs.length; i++) gap = Math.max(gap, runs[i]! - runs[i - 1]!);
    if (gap > 0) longest = gap;
  }
  if (intervals.size > 1000) intervals.clear();
  intervals.set(key, longest);
  return longest;
}

/** The grace added to an interval before a job counts as stale: 25% of it, at least 2 hours. */
export const MIN_GRACE_MS = 2 * 3_600_000;
export function graceFor(intervalMs: number): number {
  return Math.max(intervalMs * 0.25, MIN_GRACE_MS);
}

/** The allowed age of the newest successful backup for an interval: the interval plus its grace. */
export function allowedAge(intervalMs: number): number {
  return intervalMs + graceFor(intervalMs);
}
