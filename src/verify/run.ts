// Reads every file of the chosen backups back through its signed URL and
// judges it: byte count against the record's stated size, sha256 against the
// ledger, and the content checks of inspect.ts, all on the stream as it
// arrives. Nothing is written to disk. Pure of output: the caller renders.
import { createHash, type Hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { InterruptedError } from '../errors.js';
import { SizeRefusedError } from '../jobs/download.js';
import { inspect, type Check } from './inspect.js';
import { ledgerKey, type Ledger } from './ledger.js';
import type { BackupResult, FileResult, VerifyDocument } from './model.js';
import { parseStatedSize, type StatedSize } from './size.js';

export interface BackupToVerify {
  id: string;
  created_at: string | null;
  status: string | null;
  encrypted: boolean;
  files: Array<{ name: string; url: string; size: unknown }>;
}

/** Where the bytes go while they arrive; `restart` when the transfer must start over (the server ignored Range). */
export interface ByteSink {
  write(chunk: Buffer): Promise<void>;
  restart(): void;
}

export interface Transfer {
  /** Streams the file into `sink`, resuming a broken transfer; throws when it cannot be read. */
  read(file: { name: string; url: string; size?: number; maxSize?: number }, sink: ByteSink): Promise<{ bytes: number; resumed: boolean }>;
  /** A range of the file again (inclusive end), for a large zip. */
  range(url: string, start: number, end: number): Readable;
}

export interface Progress {
  add(bytes: number): void;
  fileDone(): void;
  end(): void;
}

export interface VerifyOptions {
  job: { id: string; name: string | null };
  selection: string;
  transfer: Transfer;
  ledger: Ledger;
  parallel: number;
  now: () => Date;
  progress?: Progress;
  signal: AbortSignal;
  /** Called with each file's result as soon as it is judged (ndjson streams them). */
  onFile?: (file: FileResult) => void;
}

const MB = 1024 * 1024;
const BATCH_BYTES = MB / 2;
const round = (n: number, digits: number) => Number(n.toFixed(digits));

/** "12.5 KB, 12749..12851 bytes"; "744 bytes". */
const statedWords = (stated: StatedSize) => `${stated.text}${stated.min === stated.max ? '' : `, ${stated.min}..${stated.max} bytes`}`;

function sizeReason(bytes: number, size: unknown): string | undefined {
  const stated = parseStatedSize(size);
  if (!stated || (bytes >= stated.min && bytes <= stated.max)) return undefined;
  const what = bytes < stated.min ? 'fewer' : 'more';
  return `size: read ${bytes} bytes, ${what} than the record states (${statedWords(stated)})`;
}

/** The transfer refused a file not of its stated size: announced so (nothing read), or stopped once past it. */
function refusedReason(err: SizeRefusedError, stated: StatedSize): string {
  if (!err.announced) return `size: read more than the record states (${statedWords(stated)}); stopped after ${err.bytes} bytes`;
  return `size: the server announces ${err.bytes} bytes, ${err.bytes < stated.min ? 'fewer' : 'more'} than the record states (${statedWords(stated)}); not read`;
}

async function verifyFile(backup: BackupToVerify, file: BackupToVerify['files'][number], o: VerifyOptions): Promise<FileResult> {
  const started = performance.now();
  let hash: Hash;
  let check: Check;
  let bytes = 0;
  // Network chunks (~64 KB) are gathered to BATCH_BYTES before the checks see
  // them: each chunk costs a trip through zlib's thread pool and the tar parser,
  // and 512 KB ones make verify two to three times faster than 64 KB ones.
  let batch: Buffer[] = [];
  let batched = 0;
  const flush = async () => {
    if (!batched) return;
    const chunk = batch.length === 1 ? batch[0]! : Buffer.concat(batch, batched);
    batch = [];
    batched = 0;
    hash.update(chunk);
    await check.write(chunk);
  };
  const fresh = () => {
    hash = createHash('sha256');
    batch = [];
    batched = 0;
    bytes = 0;
    check = inspect({
      encrypted: backup.encrypted,
      readRange: (start, end) => o.transfer.range(file.url, start, end),
    });
  };
  fresh();
  const stated = parseStatedSize(file.size);
  let resumed = false;
  let transferFailure: string | undefined;
  try {
    const got = await o.transfer.read(
      // Bytes past what the stated size allows end the transfer: an endless stream cannot keep verify busy.
      { name: file.name, url: file.url, size: stated && stated.min === stated.max ? stated.bytes : undefined, maxSize: stated?.max },
      {
        async write(chunk) {
          bytes += chunk.length;
          o.progress?.add(chunk.length);
          batch.push(chunk);
          batched += chunk.length;
          if (batched >= BATCH_BYTES) await flush();
        },
        restart: fresh,
      },
    );
    resumed = got.resumed;
    await flush();
  } catch (err) {
    if (o.signal.aborted || err instanceof InterruptedError) throw err;
    if (err instanceof SizeRefusedError && stated) {
      transferFailure = refusedReason(err, stated);
      if (err.announced) bytes = 0;
    } else {
      transferFailure = `download: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const base = {
    backup_id: backup.id,
    name: file.name,
    stated_size: typeof file.size === 'string' ? file.size : typeof file.size === 'number' ? `${file.size} bytes` : null,
    bytes,
    seconds: round(seconds, 3),
    mb_per_s: seconds > 0 ? round(bytes / MB / seconds, 1) : 0,
    resumed,
  };
  if (transferFailure) {
    return { ...base, verdict: 'failed', format: 'unknown', entries: null, content_bytes: null, sha256: null, first_seen: null, reasons: [transferFailure] };
  }
  const finding = await check!.end();
  const sha256 = hash!.digest('hex');
  const key = ledgerKey(backup.id, file.name);
  const known = o.ledger.lookup(key);
  const reasons: string[] = [];
  if (known && known.sha256 !== sha256) {
    reasons.push(`changed since ${known.first_seen}: the bytes differ from those first verified then (sha256 ${known.sha256.slice(0, 12)}…)`);
  }
  const size = sizeReason(bytes, file.size);
  if (size) reasons.push(size);
  if (finding.verdict === 'failed') reasons.push(finding.reason ?? `${finding.format}: damaged`);
  const failed = reasons.length > 0;
  // Only bytes that passed every check become the reference for later runs.
  if (!failed) o.ledger.record(key, sha256, bytes, o.now());
  if (!failed && finding.reason) reasons.push(finding.reason);
  return {
    ...base,
    verdict: failed ? 'failed' : finding.verdict,
    format: finding.format,
    entries: finding.entries ?? null,
    content_bytes: finding.content_bytes ?? null,
    sha256,
    first_seen: failed ? (known?.first_seen ?? null) : (o.ledger.lookup(key)?.first_seen ?? null),
    reasons,
  };
}

/** Verifies every file of every backup, `parallel` files at a time; results keep the backups' and files' order. */
export async function verifyBackups(backups: BackupToVerify[], o: VerifyOptions): Promise<VerifyDocument> {
  const startedAt = o.now();
  const tasks = backups.flatMap((b, bi) => b.files.map((f, fi) => ({ b, f, bi, fi })));
  const results: FileResult[][] = backups.map((b) => new Array<FileResult>(b.files.length));
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const t = tasks[next++]!;
      o.signal.throwIfAborted();
      const result = await verifyFile(t.b, t.f, o);
      results[t.bi]![t.fi] = result;
      o.progress?.fileDone();
      o.onFile?.(result);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(o.parallel, tasks.length)) }, worker));
  } finally {
    o.progress?.end();
  }
  const backupResults: BackupResult[] = backups.map((b, i) => {
    const files = results[i]!;
    const failed = files.filter((f) => f.verdict === 'failed').length;
    return {
      id: b.id,
      created_at: b.created_at,
      status: b.status,
      encrypted: b.encrypted,
      verdict: failed ? 'failed' : 'verified',
      files_total: files.length,
      files_failed: failed,
      bytes_read: files.reduce((n, f) => n + f.bytes, 0),
      seconds: round(files.reduce((n, f) => n + f.seconds, 0), 3),
      files,
    };
  });
  const filesFailed = backupResults.reduce((n, b) => n + b.files_failed, 0);
  const now = o.now();
  o.ledger.markJob(o.job.id, now, filesFailed === 0);
  return {
    generated_at: startedAt.toISOString(),
    job: o.job,
    selection: o.selection,
    verdict: filesFailed ? 'failed' : 'verified',
    summary: {
      backups: backupResults.length,
      files: tasks.length,
      files_failed: filesFailed,
      bytes_read: backupResults.reduce((n, b) => n + b.bytes_read, 0),
      seconds: round((now.getTime() - startedAt.getTime()) / 1000, 3),
    },
    backups: backupResults,
  };
}
