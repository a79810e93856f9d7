// Waits for a started backup: finds it by backup_id in the job's backups
// (sorted -created_at, as the service offers no single-backup endpoint in its
// interface) and polls until it ends. Polling is bounded by the wait timeout;
// 429s and Retry-After are handled by the client's retries.
import type { Client, Spinner } from '../cli/types.js';
import { WaitFailedError, WaitTimeoutError } from '../errors.js';
import { abortableSleep } from '../http/retry.js';
import { formatDuration } from './cron.js';

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

const FAILED = new Set(['failed', 'expired']);
const DONE = new Set(['completed', 'completed_with_errors', ...FAILED]);

export async function waitForBackup(client: Client, jobId: string, backupId: string, o: WaitOptions): Promise<BackupRecord> {
  const now = o.now ?? Date.now;
  const started = now();
  const deadline = started + o.timeoutMs;
  let last: BackupRecord | undefined;
  for (;;) {
    const res = await client.request(
      { method: 'GET', path: `/jobs/${encodeURIComponent(jobId)}/backups`, query: { sort: '-created_at', page_size: 15 } },
      { signal: o.signal },
    );
    const data = (res.body as { data?: unknown } | undefined)?.data;
    const found = Array.isArray(data) ? (data as BackupRecord[]).find((b) => b && b.id === backupId) : undefined;
    if (found) last = found;
    const status = String(last?.status ?? 'starting');
    o.spinner?.update(`Backup ${backupId}: ${status} (${formatDuration(now() - started)})`);
    if (last && DONE.has(status)) {
      o.spinner?.stop();
      if (FAILED.has(status)) throw new WaitFailedError(`backup ${backupId} of job ${jobId} ended ${status}`);
      if (status === 'completed_with_errors') {
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
