// The jobs of the retention forecast (--retention-jobs): histories whose
// counts were just lowered, so that their next run expires some, and the
// guard's story. How the emulator expires backups: retention-apply.ts.
import { jobSlug, makeBackupFiles } from './routes/backups.js';
import { scheduleFrequency } from './routes/jobs.js';
import { runsBetween } from './schedule.js';
import { makeTags, type Store, type TagName } from './store.js';
import { DAY, HOUR, MINUTE, SECOND, createRng, fileStamp, randInt, uuidFrom, wholeSeconds, zonedDate } from './util.js';

/** The tags of a daily run at `at` in `zone`, as the seed gives them: daily, weekly on Sundays, monthly on the 1st. */
function dailyTags(at: number, zone: string): TagName[] {
  const local = zonedDate(at, zone);
  return ['daily', ...(local.weekday === 0 ? (['weekly'] as const) : []), ...(local.day === 1 ? (['monthly'] as const) : [])];
}

interface RetentionJob {
  name: string;
  retention: { hourly: number; daily: number; weekly: number; monthly: number };
  /** Completed backups at the newest due runs of `0 3 * * *` UTC. */
  backups: number;
}

/**
 * The jobs of the retention forecast, at 03:00 UTC daily:
 * - "retention lowered": retention_daily just lowered from 10 to 7, 10 completed daily backups;
 * - "retention gfs": daily 4, weekly 2, monthly 1 over 60 days of completed daily backups;
 * - "retention guard": daily 2 and two completed backups: a verify of the newest proves a backup
 *   that is two runs from expiring (the guard's story in the demo).
 */
export const RETENTION_JOBS: readonly RetentionJob[] = [
  { name: 'retention lowered', retention: { hourly: 0, daily: 7, weekly: 0, monthly: 0 }, backups: 10 },
  { name: 'retention gfs', retention: { hourly: 0, daily: 4, weekly: 2, monthly: 1 }, backups: 60 },
  { name: 'retention guard', retention: { hourly: 0, daily: 2, weekly: 0, monthly: 0 }, backups: 2 },
];

export const RETENTION_CRON = '0 3 * * *';

export function addRetentionJobs(store: Store, now: number): void {
  const rng = createRng(0x5eed_0032);
  for (const spec of RETENTION_JOBS) {
    const runs = runsBetween(RETENTION_CRON, 'UTC', now - (spec.backups + 2) * DAY, now - 15 * MINUTE).slice(-spec.backups);
    const job = store.jobs.insert({
      id: uuidFrom(rng),
      name: spec.name,
      recipe_id: 1,
      compute: { type: 'ss_agent' },
      config: { root_path: '/srv/data' },
      schedules: [
        { id: store.newScheduleId(), order: 1, cron: RETENTION_CRON, timezone: 'UTC', run_offset: 0, retention: { ...spec.retention }, status: 'active', ...scheduleFrequency(RETENTION_CRON) },
      ],
      storage: store.storage.size ? [{ storage_id: store.storage.rows[0]!.id, priority: 1 }] : [],
      encryption_key_id: null,
      proxy_id: null,
      last_ran_at: runs.at(-1) ?? null,
      created_at: wholeSeconds(now - 400 * DAY),
      updated_at: wholeSeconds(now - HOUR),
    });
    for (const at of runs) {
      const created = wholeSeconds(at + 10 * SECOND);
      store.backups.insert({
        id: uuidFrom(rng),
        job_id: job.id,
        status: 'completed',
        tags: makeTags(dailyTags(at, 'UTC')),
        s3_directory: `backups/${jobSlug(job)}/${fileStamp(created)}`,
        created_at: created,
        started_at: created + 5 * SECOND,
        completed_at: created + 65 * SECOND,
        monitoring_available: true,
        encryption_key: null,
        files: makeBackupFiles(rng, job, created, (r) => randInt(r, 2_000, 40_000)),
      });
    }
  }
}
