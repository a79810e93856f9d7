// Waits for a started backup: finds it by backup_id among the job's newest
// backups (src/backups/newest.ts; the interface offers no single-backup
// endpoint) and polls until it ends. Polling is bounded by the wait timeout;
// 429s and Retry-After are handled by the client's retries.
import type { Client, Spinner } from '../cli/types.js';
import { WaitFailedError, WaitTimeoutError } from '../errors.js';
import { abortableSleep } from '../http/retry.js';
import { formatDuration } from './cron.js';
import { newestBackups } from '../backups/newest.js';
import { isFinished, outcomeOf } from '../backups/status.js';

export interface BackupRecord {
  id: string;
  status?: string;
  [k: string]: unknown;
}

export interface WaitOptions {
  intervalMs: number;
  timeoutMs: number;
  strict: boolean;
  signal: AbortSignal;
  spinner?: Spinner;
  warn: (message: string) => void;
  now?: () => number;
}


export async function waitForBackup(client: Client, jobId: string, backupId: string, o: WaitOptions): Promise<BackupRecord> {
  const now = o.now ?? Date.now;
  const started = now();
  const deadline = started + o.timeoutMs;
  let last: BackupRecord | undefined;
  for (;;) {
    const recent = (await newestBackups(client, jobId, { signal: o.signal })) as BackupRecord[];
    const found = recent.find((b) => b && b.id === backupId);
    if (found) last = found;
    const status = String(last?.status ?? 'starting');
    o.spinner?.update(`Backup ${backupId}: ${status} (${formatDuration(now() - started)})`);
    // The statuses and what they mean: src/backups/status.ts, one definition for every command.
    if (last && isFinished(status)) {
      o.spinner?.stop();
      const outcome = outcomeOf(status);
      if (outcome === 'failure') throw new WaitFailedError(`backup ${backupId} of job ${jobId} ended ${status}`);
      // Finished with errors: its files exist, so the wait succeeds with a warning (not a success: --strict refuses it).
      if (outcome === 'partial') {
        if (o.strict) throw new WaitFailedError(`backup ${backupId} of job ${jobId} completed with errors (--strict)`);
        o.warn(`backup ${backupId} completed with errors`);
      }
      return last;
    }
    const left = deadline - now();
    if (left <= 0) {
      o.spinner?.stop();
      throw new WaitTimeoutError(`gave up waiting for backup ${backupId} after ${formatDuration(o.timeoutMs)}: it is still ${status}`, [
        `Check later: backupctl jobs backup list ${jobId} --sort -created_at`,
      ]);
    }
    await abortableSleep(Math.min(o.intervalMs, left), o.signal);
  }
}
