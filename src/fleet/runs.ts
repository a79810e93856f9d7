// A job schedule's next run (issue 30 §2), for status. Every reader of a schedule computes its runs
// from the one basis, src/util/schedule-basis.ts (a cron, or frequency + run_offset): status here,
// report's expected runs (src/report/compute.ts) and the retention forecast (src/retention/runs.ts)
// through the cron tools' runsBetween.
import type { CronTools } from './schedule.js';
import { scheduleBasis, type ScheduleFields } from '../util/schedule-basis.js';

/** The schedule's first run strictly after `from`; undefined when none can be computed. */
export function nextScheduleRun(s: ScheduleFields, from: Date, tools: Pick<CronTools, 'nextRun'>): Date | undefined {
  const basis = scheduleBasis(s);
  if (basis.cron === null) return undefined;
  return tools.nextRun(basis.cron, timezoneOf(s), from);
}

function timezoneOf(s: ScheduleFields): string | null {
  return typeof s.timezone === 'string' && s.timezone.trim() ? s.timezone.trim() : null;
}
