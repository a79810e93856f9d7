// restore-test's work for the chosen backup: the one read pipeline
// (src/pipeline: transfer, fan out, verify's checks on the way, verdict) with
// one extra sink per file, a DispatchSink that restores it. verify and
// restore-test differ only in that sink. The results are gathered into the
// document; pure of output. Ctrl-C, SIGTERM, --timeout or a fatal error (no
// engine) abort the sink under way (servers stopped, folders removed) before
// anything is thrown.
import { InterruptedError } from '../errors.js';
import { readBackups, type FileResult, type HashLedger, type PipelineBackup, type PipelineFile, type Progress, type Transfer } from '../pipeline/index.js';
import type { UrlSource } from '../pipeline/types.js';
import { boundsFromEnv } from '../pipeline/bounds.js';
import type { Decryptor } from '../pipeline/decrypt.js';
import { DispatchSink, failedRestore } from './dispatch.js';
import type { RestoreBackupResult, RestoreDocument, RestoreFileResult } from './document.js';
import type { FileRestore, RestoreOptions } from './types.js';
import { whenAborted } from '../util/abort.js';

export type BackupToRestore = PipelineBackup;

export interface RunOptions {
  job: { id: string; name: string | null };
  selection: string;
  /** The transfer stage (signedUrlTransfer), made with the run's own signal: a fatal error or the time limit stops it. */
  transfer: (signal: AbortSignal) => Transfer;
  progress?: Progress;
  /** verify's ledger: bytes that differ from those verified before fail ("changed since"); passing files are recorded. */
  ledger?: HashLedger;
  restore: Omit<RestoreOptions, 'signal'>;
  /** Decrypt on the way (--private-key, --decrypt-with): the restore sink gets the plaintext. */
  decrypt?: Decryptor;
  /** Fresh signed URLs (src/pipeline/urls.ts). */
  urls?: UrlSource;
  /** --timeout: the longest the whole test may take. */
  timeoutMs: number;
  signal: AbortSignal;
  now: () => Date;
  onFile?: (file: RestoreFileResult) => void;
  /** More sinks per file after the restore's own (the catalog's fingerprints). */
  sinks?: (file: PipelineFile, backup: PipelineBackup) => Array<import('../pipeline/types.js').ContentSink<unknown>>;
  /** Called with each file's whole outcome, extra sinks' results included. */
  onOutcome?: (outcome: import('../pipeline/types.js').FileOutcome<unknown>) => void;
}

const round = (n: number) => Number(n.toFixed(3));

export class RestoreTimeoutError extends Error {}

/** The first reason a file failed. */
export function fileReason(f: RestoreFileResult): string | null {
  if (f.check.verdict === 'failed' || f.check.verdict === 'not-tested') return f.check.reason;
  if (f.verdict === 'failed' || f.verdict === 'not-tested') return f.failure?.message ?? f.verdict;
  return null;
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** verify's verdict on the file, as restore-test shows it. */
function checkOf(r: FileResult): RestoreFileResult['check'] {
  return { verdict: r.verdict, format: r.format, reason: r.verdict === 'failed' || r.verdict === 'not-tested' ? r.reasons.join('; ') : null };
}

export async function restoreBackup(backup: BackupToRestore, o: RunOptions): Promise<RestoreDocument> {
  const startedAt = o.now();
  const t0 = performance.now();
  // One controller per run: Ctrl-C, the time limit, or a fatal sink error (no engine) aborts it.
  const controller = new AbortController();
  const onAbort = () => controller.abort(o.signal.reason);
  // Also when Ctrl-C came before the run began (while the job and its backup were looked up).
  whenAborted(o.signal, onAbort);
  const timer = setTimeout(() => controller.abort(new RestoreTimeoutError(`the restore test took longer than --timeout (${Math.round(o.timeoutMs / 1000)} s)`)), o.timeoutMs);
  timer.unref?.();
  const files: RestoreFileResult[] = [];
  const sinks = new Map<PipelineFile, { sink: DispatchSink; started: number }>();
  /** Sinks whose end() was followed by settle(): the others still hold a folder to remove. */
  const settled = new Set<DispatchSink>();
  const record = (file: PipelineFile, restore: FileRestore, read: { bytes: number; resumed: boolean; seconds: number; check: RestoreFileResult['check'] }) => {
    const result: RestoreFileResult = {
      backup_id: backup.id,
      name: file.name,
      kind: restore.kind,
      // What kept the file from being tested (the transfer, the scratch server) says nothing of the backup: not-tested.
      verdict: read.check.verdict === 'failed' ? 'failed' : read.check.verdict === 'not-tested' || restore.failure?.untested ? 'not-tested' : restore.verdict,
      // `mode` as scripts read it before `name` and `runs`: where a database engine ran, else what ran.
      engine: restore.engine ? { ...restore.engine, mode: restore.engine.name === 'mongo-archive' ? 'bson' : restore.engine.name === 'files' ? 'extract' : restore.engine.runs } : null,
      database: restore.database,
      tables: restore.tables,
      rows: restore.rows,
      files: restore.files,
      bytes: restore.bytes,
      bytes_read: read.bytes,
      resumed: read.resumed,
      read_seconds: round(read.seconds),
      restore_seconds: round(restore.restore_seconds),
      check: read.check,
      failure: restore.failure,
      warnings: restore.warnings,
      assertions: restore.assertions,
      exec: restore.exec ? { ...restore.exec, seconds: round(restore.exec.seconds) } : null,
    };
    files.push(result);
    o.onFile?.(result);
  };
  try {
    await readBackups<FileRestore>([backup], {
      transfer: o.transfer(controller.signal),
      parallel: 1,
      signal: controller.signal,
      now: o.now,
      progress: o.progress,
      ledger: o.ledger,
      decrypt: o.decrypt,
      urls: o.urls,
      // The one set of bounds (src/pipeline/bounds.ts), read by the command: verify's checks and the restore's own.
      inspect: { bounds: o.restore.bounds },
      sinks: (file) => {
        const sink = new DispatchSink({ ...o.restore, signal: controller.signal, encrypted: backup.encrypted && !o.decrypt?.applies({ backupId: backup.id, encryptionKey: backup.encryption_key ?? null, fileName: file.name }), onFatal: (err) => controller.abort(err) });
        sinks.set(file, { sink, started: performance.now() });
        return [sink, ...((o.sinks?.(file, backup) ?? []) as Array<import('../pipeline/types.js').ContentSink<FileRestore>>)];
      },
      onFile: async (outcome) => {
        const { file, result, extras } = outcome;
        o.onOutcome?.(outcome as import('../pipeline/types.js').FileOutcome<unknown>);
        const sink = sinks.get(file)!.sink;
        const extra = extras[0];
        const check = checkOf(result);
        let restore: FileRestore;
        if (extra?.ok) {
          // Only now is the verdict on the bytes known (the ledger's "changed since" included): --exec runs, or not.
          restore = await sink.settle(extra.value, check.verdict !== 'failed');
          settled.add(sink);
          // Ctrl-C, SIGTERM or the time limit while --exec ran: no verdict from a command that was killed.
          if (controller.signal.aborted) throw controller.signal.reason instanceof Error ? controller.signal.reason : new InterruptedError();
          // The bytes are bad: what was restored from them proves nothing.
          if (check.verdict === 'failed') restore = { ...restore, verdict: 'failed', failure: { message: `not restored: the file failed the checks on the way (${check.reason})` } };
        } else {
          const why = check.verdict === 'failed' ? `the file failed the checks on the way (${check.reason})` : errorText(extra?.error);
          restore = failedRestore(sink.sniffed, `not restored: ${why}`);
        }
        record(file, restore, { bytes: result.bytes, resumed: result.resumed, seconds: result.seconds, check });
      },
    });
  } catch (err) {
    const reason = controller.signal.reason ?? err;
    // Ctrl-C or SIGTERM (--exec killed, servers stopped): nothing to record, nothing to judge.
    if (o.signal.aborted || !(reason instanceof RestoreTimeoutError)) {
      throw reason instanceof Error ? reason : err instanceof Error ? err : new InterruptedError();
    }
    // The time limit: the file under way fails with it, the rest is not read.
    const done = new Set(files.map((f) => f.name));
    for (const [file, { sink, started }] of sinks) {
      if (done.has(file.name)) continue;
      record(file, failedRestore(sink.sniffed, reason.message), { bytes: 0, resumed: false, seconds: (performance.now() - started) / 1000, check: { verdict: 'not-inspected', format: 'unknown', reason: null } });
    }
  } finally {
    clearTimeout(timer);
    o.signal.removeEventListener('abort', onAbort);
    // A file ended but never settled (an abort, the time limit, a throw): its folder goes now.
    await Promise.all([...sinks.values()].filter(({ sink }) => !settled.has(sink)).map(({ sink }) => sink.abort(new Error('not settled')).catch(() => {})));
  }
  // In the backup's order (the pipeline reads a backup's checksum lists first).
  const order = new Map(backup.files.map((f, i) => [f.name, i]));
  files.sort((a, b) => (order.get(a.name) ?? 0) - (order.get(b.name) ?? 0));
  const total = round((performance.now() - t0) / 1000);
  const failed = files.filter((f) => f.verdict === 'failed');
  const untested = files.filter((f) => f.verdict === 'not-tested');
  const restored = files.filter((f) => f.verdict !== 'failed' && f.verdict !== 'not-tested' && f.verdict !== 'not-restorable');
  let verdict: RestoreBackupResult['verdict'] = 'passed';
  let reason: string | null = null;
  if (failed.length) [verdict, reason] = ['failed', fileReason(failed[0]!)];
  else if (untested.length) [verdict, reason] = ['not-tested', fileReason(untested[0]!)];
  else if (!restored.length) [verdict, reason] = ['unchecked', `nothing in backup ${backup.id} could be restored (${files.map((f) => f.warnings[0] ?? f.kind).join('; ')})`];
  else if (restored.every((f) => f.verdict === 'structure-checked')) [verdict, reason] = ['structure-only', 'structure checked, not restored'];
  const b: RestoreBackupResult = {
    id: backup.id,
    created_at: backup.created_at,
    verdict,
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
