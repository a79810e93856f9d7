// A job schedule's runs (issue 30 §2): the one place that says when a schedule runs, for status
// (next run, staleness), report (expected runs) and the retention forecast; what they are computed
// from is src/util/schedule-basis.ts.
import type { CronTools } from './schedule.js';
import { scheduleBasis, type ScheduleFields } from '../util/schedule-basis.js';

/** Every run of the schedule in [from, to], in order; undefined when none can be computed. */
export function scheduleRunsBetween(s: ScheduleFields, from: Date, to: Date, tools: Pick<CronTools, 'runsBetween'>, limit?: number): Date[] | undefined {
  const basis = scheduleBasis(s);
  if (basis.cron === null) return undefined;
  return tools.runsBetween(basis.cron, timezoneOf(s), from, to, limit);
}

/** The schedule's first run strictly after `from`; undefined when none can be computed. */
export function nextScheduleRun(s: ScheduleFields, from: Date, tools: Pick<CronTools, 'nextRun'>): Date | undefined {
  const basis = scheduleBasis(s);
  if (basis.cron === null) return undefined;
  return tools.nextRun(basis.cron, timezoneOf(s), from);
}

function timezoneOf(s: ScheduleFields): string | null {
  return typeof s.timezone === 'string' && s.timezone.trim() ? s.timezone.trim() : null;
}
