// Retention as the emulator applies it (the model of docs/retention.md, A1-A6):
// when a tagged (not manual) backup of a job completes, the job keeps, per
// period, the newest `retention_<period>` completed backups tagged with it
// (the most any of its schedules asks for); every other completed, non-manual
// backup is expired (status "expired", its files gone). Manual, failed and
// running backups are left alone. The seeded history is not trimmed: retention
// applies from the first run after the emulator starts.
import type { BackupRecord, JobRecord, Store } from './store.js';

const PERIODS = ['hourly', 'daily', 'weekly', 'monthly'] as const;
const COUNTED = new Set(['completed', 'completed_with_errors']);

/**
 * Applies the job's retention after `made` completed; returns the backups it expired. A job without a
 * schedule has no counts and expires nothing; the backup just made is never expired by its own run (A6).
 */
export function applyRetention(store: Store, job: JobRecord, made: BackupRecord): BackupRecord[] {
  if (!job.schedules.length) return [];
  const counts = Object.fromEntries(PERIODS.map((p) => [p, Math.max(0, ...job.schedules.map((s) => s.retention[p] ?? 0))])) as Record<(typeof PERIODS)[number], number>;
  const counted = store
    .backupsOfJob(job.id)
    .filter((b) => COUNTED.has(b.status) && !b.tags.manual)
    .slice()
    .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1));
  const kept = new Set<BackupRecord>();
  for (const p of PERIODS) counted.filter((b) => b.tags[p]).slice(0, counts[p]).forEach((b) => kept.add(b));
  const expired = counted.filter((b) => !kept.has(b) && b !== made);
  for (const b of expired) store.backups.patch(b, { status: 'expired', files: [] });
  return expired;
}
