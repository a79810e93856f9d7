// The bad-night jobs in the store (bad-night.ts makes their bytes): "file share"
// "share zip" and "crm postgres", 22 nights each at 02:30 UTC, laid back from the emulator's clock.
import { BAD_NIGHT_JOBS, NIGHTS, nightBytes, newestNight } from './bad-night.js';
import { jobSlug } from './routes/backups.js';
import { activeUtcSchedule } from './routes/jobs.js';
import { makeTags, type Store } from './store.js';
import { DAY, HOUR, createRng, fileStamp, randInt, uuidFrom, wholeSeconds } from './util.js';

/** Adds the two jobs and their 22 nights of backups. */
export function addBadNightJobs(store: Store, now: number): void {
  const newest = newestNight(now);
  const specs = [
    { name: BAD_NIGHT_JOBS.files, job: 'files' as const, recipe: 1, seed: 1, suffix: '.tar.gz', kind: 'tar.gz' as const, config: { path: '/srv/share' } as Record<string, string> },
    { name: BAD_NIGHT_JOBS.sql, job: 'sql' as const, recipe: 3, seed: 3, suffix: '.sql.gz', kind: 'tar.gz' as const, config: { postgres_username: 'crm', postgres_database: 'crm' } as Record<string, string> },
    { name: BAD_NIGHT_JOBS.zip, job: 'zip' as const, recipe: 1, seed: 0x21b, suffix: '.zip', kind: 'zip' as const, config: { path: '/srv/share-zip' } as Record<string, string> },
  ];
  for (const spec of specs) {
    const rng = createRng(0x5eed + spec.seed);
    // Made an hour before its first night: a report over its history misses no run (it had none before).
    const created = wholeSeconds(newest - (NIGHTS - 1) * DAY - HOUR);
    const job = store.jobs.insert({
      id: uuidFrom(rng),
      name: spec.name,
      recipe_id: spec.recipe,
      compute: { type: 'ss_agent' },
      config: spec.config,
      schedules: [activeUtcSchedule(store, '30 2 * * *', { hourly: 0, daily: 30, weekly: 4, monthly: 3 })],
      storage: store.storage.size ? [{ storage_id: store.storage.rows[0]!.id, priority: 1 }] : [],
      encryption_key_id: null,
      proxy_id: null,
      last_ran_at: newest,
      created_at: created,
      updated_at: created,
    });
    for (let night = 0; night < NIGHTS; night++) {
      const at = newest - (NIGHTS - 1 - night) * DAY;
      const size = nightBytes(spec.job, night).length;
      store.backups.insert({
        id: uuidFrom(rng),
        job_id: job.id,
        status: 'completed',
        tags: makeTags(['daily']),
        s3_directory: `backups/${jobSlug(job)}/${fileStamp(at)}`,
        created_at: wholeSeconds(at),
        started_at: wholeSeconds(at + 5_000),
        completed_at: wholeSeconds(at + 5_000 + randInt(rng, 40, 70) * 1000),
        monitoring_available: true,
        encryption_key: null,
        files: [{ id: uuidFrom(rng), name: `${jobSlug(job)}-${fileStamp(at)}${spec.suffix}`, size, content: { kind: spec.kind, night: { job: spec.job, index: night } } }],
      });
    }
  }
}
