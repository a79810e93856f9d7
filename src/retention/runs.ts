// The future runs of a schedule, with the period tags each run's backup will
// carry (assumption A5 of docs/retention.md). The ONE place the forecast asks
// when a schedule runs: it reads the cron expression and time zone of a job's
// schedule, or a droplet's / volume's / resource's frequency and run offset,
// through src/fleet/schedule.ts. When schedules gain their own "runs of a
// schedule" function, this file is what to repoint.
import type { CronTools } from '../fleet/schedule.js';
import { DEFAULT_TIMEZONE } from '../fleet/schedule.js';
import { scheduleBasis, type ScheduleFields } from '../util/schedule-basis.js';
import { STOPPED_SCHEDULE } from '../fleet/reader.js';
import { RETENTION_PERIODS, type Period } from '../backups/retention.js';
import type { Run } from './keep-rules.js';

/** A schedule as the forecast needs it: a cron expression in a time zone. */
export interface ScheduleSpec {
  cron: string;
  timezone: string;
  /** How the schedule was given, for the echo of inputs. */
  text: string;
}

/**
 * A schedule's runs as one cron in a zone, read by the one schedule reader of every command
 * (src/util/schedule-basis.ts, scheduleBasis): a job's cron, or its frequency + run_offset when it has one
 * (the published service's, beside a placeholder cron that disagrees), or a droplet's / volume's /
 * resource's frequency. A paused (inactive, disabled, stopped) schedule or machine has no runs.
 */
export function scheduleSpec(s: ScheduleFields & { status?: unknown }): ScheduleSpec | { unreadable: string } {
  const timezone = typeof s.timezone === 'string' && s.timezone.trim() ? s.timezone.trim() : DEFAULT_TIMEZONE;
  const status = typeof s.status === 'string' ? s.status.trim().toLowerCase() : '';
  if (STOPPED_SCHEDULE.has(status)) return { unreadable: `${status}: no runs while it is ${status}` };
  const basis = scheduleBasis(s);
  if (basis.cron === null) return { unreadable: basis.unreadable ?? basis.text };
  return { cron: basis.cron, timezone, text: `${basis.text} ${timezone}` };
}

const DAY = 86_400_000;

/** The local date of an instant in a zone: year, month, day, weekday (0 = Sunday). */
function localDate(at: number, zone: string): { key: string; day: number; weekday: number } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', weekday: 'short' }).formatToParts(new Date(at));
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  const weekday = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(get('weekday'));
  return { key: `${get('year')}-${get('month')}-${get('day')}`, day: Number(get('day')), weekday };
}

/**
 * The runs of the schedules after `from` up to `to`, oldest first, tagged as
 * the service tags a scheduled run (A5): hourly when the schedule runs more
 * often than daily; daily for the first run of a local day; weekly when that
 * day is a Sunday; monthly when it is the 1st. Runs of two schedules at the
 * same instant are one run with both's tags. Undefined when a schedule cannot be read.
 */
export function futureRuns(tools: CronTools, schedules: readonly ScheduleSpec[], from: number, to: number, limit = 50_000): Run[] | undefined {
  const byInstant = new Map<number, Set<Period>>();
  for (const s of schedules) {
    // A day before `from`, so the first future run knows whether it is its day's first.
    const runs = tools.runsBetween(s.cron, s.timezone, new Date(from - 2 * DAY), new Date(to), limit);
    if (!runs) return undefined;
    const times = runs.map((d) => d.getTime());
    let minGap = Infinity;
    for (let i = 1; i < times.length; i++) minGap = Math.min(minGap, times[i]! - times[i - 1]!);
    const subDaily = minGap < DAY - 2 * 3_600_000; // a DST day's 23 hours is still daily
    let previousKey: string | undefined;
    for (const at of times) {
      const local = localDate(at, s.timezone);
      const first = local.key !== previousKey;
      previousKey = local.key;
      if (at <= from) continue;
      const tags = byInstant.get(at) ?? new Set<Period>();
      if (subDaily) tags.add('hourly');
      if (first) {
        tags.add('daily');
        if (local.weekday === 0) tags.add('weekly');
        if (local.day === 1) tags.add('monthly');
      }
      byInstant.set(at, tags);
    }
  }
  return [...byInstant.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([at, tags]) => ({ at, tags: RETENTION_PERIODS.filter((p) => tags.has(p)) }));
}
