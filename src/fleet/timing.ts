// A job's schedule timing as one string, and the memory of it (src/state/schedule-timing.ts): what `report` reads
// to tell an edit of the schedule from an edit of something else (issue 42.5), and what `apply` records before a
// retention-only edit.
import type { Context } from '../contract/context.js';
import type { TimingsState as ScheduleTimings } from '../state/schedule-timing.js';
import { parseServiceTime } from '../util/time.js';
import { jobSchedules, type Rec } from './reader.js';

/** What decides when a job's runs are expected: each schedule's cron or frequency, offset, time zone and state. */
export function timingOf(job: Rec): string {
  return JSON.stringify(
    jobSchedules(job)
      .map((s) => [s.basis.cron, s.basis.text, s.basis.source, s.timezone, s.run_offset, s.stopped ?? null])
      .map((t) => JSON.stringify(t))
      .sort(),
  );
}

/** The last change of the job or of one of its schedules (their updated_at), epoch ms. */
export function lastChangeOf(job: Rec): number | undefined {
  const changes = [job.updated_at, ...jobSchedules(job).map((s) => s.updated_at)].map((t) => parseServiceTime(t)).filter((t): t is number => t !== undefined);
  return changes.length ? Math.max(...changes) : undefined;
}

/**
 * The timing memory of the context's service; null when the state folder's cannot be read (report then reads
 * updated_at alone). A shared state that cannot be reached is exit 3, as for the marks.
 */
export async function openTimings(ctx: Pick<Context, 'settings' | 'env'>): Promise<ScheduleTimings | null> {
  try {
    return await (await import('../state/open.js')).openTimings(ctx);
  } catch (err) {
    if ((await ctx.settings()).stateUrl) throw err;
    return null;
  }
}
