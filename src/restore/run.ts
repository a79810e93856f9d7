// restore-test's work for the chosen backup: each file read (readFileInto,
// the seam to the read pipeline) into a DispatchSink that restores it, one
// file at a time; the results gathered into the document. Pure of output.
// Ctrl-C, SIGTERM, --timeout or a fatal error abort the sink under way
// (servers stopped, folders removed) before anything is thrown.
import { InterruptedError } from '../errors.js';
import { DispatchSink, failedRestore } from './dispatch.js';
import type { RestoreBackupResult, RestoreDocument, RestoreFileResult } from './model.js';
import { readFileInto, type ReadFn } from './read.js';
import type { FileRestore, RestoreOptions } from './types.js';

export interface BackupToRestore {
  id: string;
  created_at: string | null;
  encrypted: boolean;
  files: Array<{ name: string; url: string; size: unknown }>;
}

export interface RunOptions {
  job: { id: string; name: string | null };
  selection: string;
  read: ReadFn;
  /** A byte range of a file again (inclusive end): verify's check of a zip too large to hold reads its entries so. */
  range?: (url: string, start: number, end: number) => import('node:stream').Readable;
  restore: Omit<RestoreOptions, 'signal'>;
  /** --timeout: the longest the whole test may take. */
  timeoutMs: number;
  signal: AbortSignal;
  now: () => Date;
  onFile?: (file: RestoreFileResult) => void;
}

const round = (n: number) => Number(n.toFixed(3));

export class RestoreTimeoutError extends Error {}

/** The first reason a file failed. */
export function fileReason(f: RestoreFileResult): string | null {
  if (f.check.verdict === 'failed') return f.check.reason;
  if (f.verdict === 'failed') return f.failure?.message ?? 'failed';
  return null;
}

export async function restoreBackup(backup: BackupToRestore, o: RunOptions): Promise<RestoreDocument> {
  const startedAt = o.now();
  const t0 = performance.now();
  // One controller per run: Ctrl-C, the time limit, or a fatal sink error (no engine) aborts it.
  const controller = new AbortController();
  const onAbort = () => controller.abort(o.signal.reason);
  o.signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new RestoreTimeoutError(`the restore test took longer than --timeout (${Math.round(o.timeoutMs / 1000)} s)`)), o.timeoutMs);
  timer.unref?.();
  const files: RestoreFileResult[] = [];
  try {
    for (const file of backup.files) {
      controller.signal.throwIfAborted();
      const sink = new DispatchSink({ ...o.restore, signal: controller.signal, encrypted: backup.encrypted, onFatal: (err) => controller.abort(err) });
      const fileStart = performance.now();
      let restore: FileRestore;
      let outcome;
      try {
        const range = o.range;
        outcome = await readFileInto(file, [sink], {
          read: o.read,
          signal: controller.signal,
          encrypted: backup.encrypted,
          readRange: range ? (start, end) => range(file.url, start, end) : undefined,
        });
        if (outcome.check.verdict === 'failed') {
          // The bytes are bad: what was restored from them proves nothing.
          await sink.abort(new Error(outcome.check.reason ?? 'failed'));
          restore = failedRestore(sink.sniffed, `not restored: the file failed the checks on the way (${outcome.check.reason})`);
        } else {
          restore = await sink.end();
        }
      } catch (err) {
        await sink.abort(err);
        const reason = controller.signal.reason ?? err;
        if (reason instanceof RestoreTimeoutError) {
          restore = failedRestore(sink.sniffed, reason.message);
          outcome ??= { bytes: 0, resumed: false, read_seconds: (performance.now() - fileStart) / 1000, check: { verdict: 'not-inspected' as const, format: 'unknown', reason: null } };
        } else {
          throw reason instanceof Error ? reason : new InterruptedError();
        }
      }
      // Ctrl-C or SIGTERM while the checks ran (--exec killed): nothing to record, nothing to judge.
      if (o.signal.aborted) throw o.signal.reason instanceof Error ? o.signal.reason : new InterruptedError();
      const result: RestoreFileResult = {
        backup_id: backup.id,
        name: file.name,
        kind: restore.kind,
        verdict: outcome.check.verdict === 'failed' ? 'failed' : restore.verdict,
        engine: restore.engine,
        database: restore.database,
        tables: restore.tables,
        rows: restore.rows,
        files: restore.files,
        bytes: restore.bytes,
        bytes_read: outcome.bytes,
        resumed: outcome.resumed,
        read_seconds: round(outcome.read_seconds),
        restore_seconds: round(restore.restore_seconds),
        check: outcome.check,
        failure: restore.failure,
        warnings: restore.warnings,
        assertions: restore.assertions,
        exec: restore.exec ? { ...restore.exec, seconds: round(restore.exec.seconds) } : null,
      };
      files.push(result);
      o.onFile?.(result);
      if (controller.signal.aborted) break;
    }
  } finally {
    clearTimeout(timer);
    o.signal.removeEventListener('abort', onAbort);
  }
  const total = round((performance.now() - t0) / 1000);
  const failed = files.filter((f) => f.verdict === 'failed');
  const restored = files.filter((f) => f.verdict !== 'failed' && f.verdict !== 'not-restorable');
  let reason = failed.length ? fileReason(failed[0]!) : null;
  if (!reason && !restored.length) reason = `nothing in backup ${backup.id} could be restored (${files.map((f) => f.warnings[0] ?? f.kind).join('; ')})`;
  const b: RestoreBackupResult = {
    id: backup.id,
    created_at: backup.created_at,
    verdict: reason ? 'failed' : 'passed',
    files_total: files.length,
    files_failed: failed.length,
    tables: files.reduce((n, f) => n + f.tables.length, 0),
    rows: files.reduce((n, f) => n + f.rows, 0),
    bytes_read: files.reduce((n, f) => n + f.bytes_read, 0),
    read_seconds: round(files.reduce((n, f) => n + f.read_seconds, 0)),
    restore_seconds: round(files.reduce((n, f) => n + f.restore_seconds, 0)),
    total_seconds: total,
    reason,
    files,
  };
  return {
    generated_at: startedAt.toISOString(),
    job: o.job,
    selection: o.selection,
    verdict: b.verdict,
    summary: {
      backups: 1,
      files: files.length,
      files_failed: failed.length,
      tables: b.tables,
      rows: b.rows,
      bytes_read: b.bytes_read,
      read_seconds: b.read_seconds,
      restore_seconds: b.restore_seconds,
      total_seconds: b.total_seconds,
    },
    backups: [b],
  };
}
