// `backupctl emulator --fleet-jobs n`: n more jobs, "fleet 0001" to "fleet <n>", each a small file
// backup every night at 01:00 UTC with its three newest nights completed: a fleet as large as a
// test or a benchmark needs (assure run over 40 due jobs, assure status over 1,000), at any hour.
import { jobSlug, makeBackupFiles } from './routes/backups.js';
import { activeUtcSchedule } from './routes/jobs.js';
import { makeTags, type Store } from './store.js';
import { DAY, HOUR, createRng, fileStamp, randInt, uuidFrom, wholeSeconds } from './util.js';

/** Nights of backups each fleet job holds. */
export const FLEET_NIGHTS = 3;

/** The name of fleet job i (1-based): "fleet 0001". */
export const fleetJobName = (i: number) => `fleet ${String(i).padStart(4, '0')}`;

export function addFleetJobs(store: Store, now: number, count: number): void {
  const rng = createRng(0xf1ee7);
  // The newest 01:00 UTC at least an hour ago: the newest night's run, whatever the hour.
  let newest = Math.floor(now / DAY) * DAY + HOUR;
  while (newest > now - HOUR) newest -= DAY;
  const created = wholeSeconds(newest - FLEET_NIGHTS * DAY);
  for (let i = 1; i <= count; i++) {
    const job = store.jobs.insert({
      id: uuidFrom(rng),
      name: fleetJobName(i),
      recipe_id: 1,
      compute: { type: 'ss_agent' },
      config: { path: `/srv/fleet/${i}` },
      schedules: [activeUtcSchedule(store, '0 1 * * *', { hourly: 0, daily: 7, weekly: 0, monthly: 0 })],
      storage: store.storage.size ? [{ storage_id: store.storage.rows[0]!.id, priority: 1 }] : [],
      encryption_key_id: null,
      proxy_id: null,
      last_ran_at: wholeSeconds(newest),
      created_at: created,
      updated_at: created,
    });
    for (let night = FLEET_NIGHTS - 1; night >= 0; night--) {
      const at = newest - night * DAY;
      store.backups.insert({
        id: uuidFrom(rng),
        job_id: job.id,
        status: 'completed',
        tags: makeTags(['daily']),
        s3_directory: `backups/${jobSlug(job)}/${fileStamp(at)}`,
        created_at: wholeSeconds(at),
        started_at: wholeSeconds(at + 5_000),
        completed_at: wholeSeconds(at + 5_000 + randInt(rng, 20, 40) * 1000),
        monitoring_available: true,
        encryption_key: null,
        files: makeBackupFiles(rng, job, at, (r) => randInt(r, 16, 40) * 256),
      });
    }
  }
}
