// Waits for a started backup: finds it by backup_id among the job's newest
// backups (src/backups/newest.ts; the interface offers no single-backup
// endpoint) and polls until it ends. Polling is bounded by the wait timeout;
// 429s and Retry-After are handled by the client's retries.
import type { Client, Spinner } from '../contract/context.js';
import { WaitFailedError, WaitTimeoutError } from '../errors.js';
import { abortableSleep } from '../http/retry.js';
import { formatDuration } from './cron.js';
import { sanitize } from '../output/sanitize.js';
import { newestBackups } from '../backups/newest.js';
import type { Backup } from '../backups/record.js';
import { isFinished, outcomeOf } from '../backups/status.js';

export interface WaitOptions {
  intervalMs: number;
  timeoutMs: number;
  strict: boolean;
  signal: AbortSignal;
  spinner?: Spinner;
  warn: (message: string) => void;
  now?: () => number;
  /** The job's name, for the message of a failed wait (asked only then). */
  jobName?: () => Promise<string | null>;
  /** The backup's page in the web application (the start answer's url), named when the record gives no reason. */
  webUrl?: string;
}

/** Fields in which a backup record may carry why it failed (none is in the interface; a service may add one). */
const REASON_FIELDS = ['failure_reason', 'error_message', 'error', 'reason', 'status_message', 'message', 'log', 'logs'];

/** The backup's own reason, when its record gives one: the first such field's text (of a log, its last line). */
export function reasonOf(record: Record<string, unknown> | undefined): string | undefined {
  for (const key of REASON_FIELDS) {
    let v = record?.[key];
    if (Array.isArray(v)) v = v.filter((x) => typeof x === 'string').pop();
    if (v && typeof v === 'object') v = (v as { message?: unknown }).message;
    if (typeof v === 'string' && v.trim()) {
      const lines = v.trim().split(/\r?\n/);
      return lines[lines.length - 1]!.slice(0, 500);
    }
  }
  return undefined;
}


export async function waitForBackup(client: Client, jobId: string, backupId: string, o: WaitOptions): Promise<Backup> {
  const now = o.now ?? Date.now;
  const started = now();
  const deadline = started + o.timeoutMs;
  let last: Backup | undefined;
  let status = 'starting';
  // The spinner counts the time every second, not only at each poll.
  const show = () => o.spinner?.update(`Backup ${backupId}: ${sanitize(status)} (${formatDuration(now() - started)})`);
  const ticker = o.spinner ? setInterval(show, 1000) : undefined;
  ticker?.unref?.();
  try {
  for (;;) {
    const recent = (await newestBackups(client, jobId, { signal: o.signal })) as Backup[];
    const found = recent.find((b) => b && b.id === backupId);
    if (found) last = found;
    status = String(last?.status ?? 'starting');
    show();
    // The statuses and what they mean: src/backups/status.ts, one definition for every command.
    if (last && isFinished(status)) {
      o.spinner?.stop();
      const outcome = outcomeOf(status);
      if (outcome === 'failure') {
        // Name the job and say why: the record's own reason, else where to read the service's log.
        const name = await o.jobName?.().catch(() => null);
        const job = name ? `job "${sanitize(name)}" (${jobId})` : `job ${jobId}`;
        const reason = reasonOf(last);
        throw new WaitFailedError(
          `backup ${backupId} of ${job} ended ${sanitize(status)} after ${formatDuration(now() - started)}: ${reason ? sanitize(reason) : 'the service gives no reason'}`,
          reason ? [] : [o.webUrl ? `Its log on the service: ${sanitize(o.webUrl)}` : `See: backupctl jobs backup get ${jobId} ${backupId}`],
        );
      }
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
  } finally {
    if (ticker) clearInterval(ticker);
  }
}
