// The per-file stages of the read pipeline: transfer -> fan out -> (hash,
// sniff and inspect, extra sinks) -> verdict. See src/pipeline/index.ts.
import { createHash, type Hash } from 'node:crypto';
import { CliError, ExitCode, InterruptedError } from '../errors.js';
import { parseStatedSize, readingText, statedSizeFit, telltaleUnit, type StatedSize } from '../util/stated-size.js';
import { ContentStage } from './content/stage.js';
import type { ContentFinding, InspectOptions } from './content/check.js';
import { SizeRefusedError } from './transfer.js';
import { writeAll } from './fan.js';
import { DecryptError, type Decryptor } from './decrypt.js';
import type { ByteSink, ContentSink, FileResult, HashLedger, PipelineBackup, PipelineFile, Progress, SinkOutcome, Transfer, UrlSource } from './types.js';

const MB = 1024 * 1024;
/**
 * Network chunks (~64 KB) are gathered to this size before the sinks see them:
 * each chunk costs a trip through zlib's thread pool and the tar parser, and
 * 512 KB ones make verify two to three times faster than 64 KB ones.
 */
export const BATCH_BYTES = MB / 2;
const round = (n: number, digits: number) => Number(n.toFixed(digits));

/** "12.5 KB, 12749..12851 bytes"; "744 bytes". */
const statedWords = (stated: StatedSize) => `${stated.text}${stated.min === stated.max ? '' : `, ${stated.min}..${stated.max} bytes`}`;

function sizeReason(bytes: number, size: unknown): string | undefined {
  const stated = parseStatedSize(size);
  if (!stated) return undefined;
  // Either reading (1024s or 1000s: the service does not say, issue 30 §3) may match.
  if (statedSizeFit(stated, bytes)) return undefined;
  if (bytes >= stated.min && bytes <= stated.max) {
    return `size: read ${bytes} bytes, which fits the record's size neither read in 1024s nor in 1000s (${stated.readings.map((r) => readingText(stated, r)).join('; ')})`;
  }
  const what = bytes < stated.min ? 'fewer' : 'more';
  return `size: read ${bytes} bytes, ${what} than the record states (${statedWords(stated)})`;
}

/** The transfer refused a file not of its stated size: announced so (nothing read), or stopped once past it. */
function refusedReason(err: SizeRefusedError, stated: StatedSize): string {
  if (!err.announced) return `size: read more than the record states (${statedWords(stated)}); stopped after ${err.bytes} bytes`;
  return `size: the server announces ${err.bytes} bytes, ${err.bytes < stated.min ? 'fewer' : 'more'} than the record states (${statedWords(stated)}); not read`;
}

/**
 * Stage "fan out": one ByteSink that hands every (batched) chunk to all of
 * `sinks` at once and waits for the slowest (backpressure). A restart reaches
 * every sink. An extra sink whose write throws is dropped from the fan-out
 * (its error kept for its outcome): it never stops the others.
 */
export class FanOut implements ByteSink {
  private batch: Buffer[] = [];
  private batched = 0;
  readonly failed = new Map<number, unknown>();
  constructor(
    /** Sinks whose failure fails the read (the checks): their errors propagate. */
    private readonly core: ByteSink[],
    /** Extra sinks: a failure is recorded, the read goes on. */
    private readonly extras: ByteSink[] = [],
    private readonly batchBytes = BATCH_BYTES,
  ) {}

  async write(chunk: Buffer): Promise<void> {
    this.batch.push(chunk);
    this.batched += chunk.length;
    if (this.batched >= this.batchBytes) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.batched) return;
    const chunk = this.batch.length === 1 ? this.batch[0]! : Buffer.concat(this.batch, this.batched);
    this.batch = [];
    this.batched = 0;
    await writeAll(chunk, this.core, this.extras, this.failed);
  }

  async restart(): Promise<void> {
    this.batch = [];
    this.batched = 0;
    await Promise.all([...this.core.map((s) => s.restart()), ...this.extras.map((s, i) => (this.failed.has(i) ? undefined : s.restart()))]);
  }
}

/**
 * The checks verify applies to every file on the way: sha256 of the raw bytes,
 * and the content stage (decoded once, sniffed once, the kind's check), which
 * also feeds the content sinks (restore-test's engine) the decoded bytes.
 */
export class ChecksSink implements ByteSink {
  private hash: Hash = createHash('sha256');
  readonly content: ContentStage;
  bytes = 0;
  constructor(inspectOptions: InspectOptions, sinks: ReadonlyArray<ContentSink<unknown>> = []) {
    this.content = new ContentStage(inspectOptions, sinks);
  }
  async write(chunk: Buffer): Promise<void> {
    this.bytes += chunk.length;
    this.hash.update(chunk);
    await this.content.write(chunk);
  }
  async restart(): Promise<void> {
    this.hash = createHash('sha256');
    this.bytes = 0;
    await this.content.restart();
  }
  /** The hash and what the content checks found. */
  async end(): Promise<{ sha256: string; finding: ContentFinding }> {
    const finding = await this.content.end();
    return { sha256: this.hash.digest('hex'), finding };
  }
}

export interface ReadFileOptions<R> {
  transfer: Transfer;
  signal: AbortSignal;
  now: () => Date;
  /** The hashes of files that passed before: a file read with other bytes fails ("changed since"). Passing files are recorded. */
  ledger?: HashLedger;
  progress?: Progress;
  /** Options of the content inspection (bounds); `readRange` is filled in by the pipeline. */
  inspect?: Omit<InspectOptions, 'readRange'>;
  /** Content sinks for this file (restore-test's engine), fed the decoded bytes the checks read, with the kind. */
  sinks?: Array<ContentSink<R>>;
  /** The sha256 the backup's own checksum list gives this file, if any (awaited after the read, before the verdict). */
  listed?: () => Promise<ListedSum | undefined>;
  /** Decrypt on the way (--private-key, --decrypt-with): src/pipeline/decrypt.ts. */
  decrypt?: Decryptor;
  /** Fresh signed URLs: before a file starts when the backup's are old, and after a 403 (src/pipeline/urls.ts). */
  urls?: UrlSource;
}

/** A file's hash as the backup's own .sha256 / SHA256SUMS list gives it. */
export interface ListedSum {
  list: string;
  sha256: string;
}

/** Reads one file through every stage and reaches its verdict; extra sinks are ended (or aborted) before it returns. */
export async function readFile<R>(
  backup: PipelineBackup,
  file: PipelineFile,
  o: ReadFileOptions<R>,
): Promise<{ result: FileResult; extras: Array<SinkOutcome<R>>; sums?: Map<string, string> }> {
  const started = performance.now();
  const extras = o.sinks ?? [];
  // DECRYPT (issue 29 §5), the one point where it plugs in: with a Decryptor that applies to this
  // backup, the raw bytes are hashed here (size, ledger and checksum lists judge the bytes as stored)
  // and go through the decrypt stage; the content stage (checks, content sinks) gets the plaintext.
  const target = { backupId: backup.id, encryptionKey: backup.encryption_key ?? null, fileName: file.name };
  const decrypting = o.decrypt?.applies(target) === true;
  let rawHash: Hash | undefined = decrypting ? createHash('sha256') : undefined;
  // FRESH URLS (issue 29 §6): the URL the file starts with (fresh when the backup's are old), and the one in use.
  let url = file.url;
  const checks = new ChecksSink(
    {
      encrypted: backup.encrypted && !decrypting,
      ...o.inspect,
      signal: o.signal,
      // Ranges of the encrypted file are no ranges of the plaintext: a large zip is checked as far as it streams.
      readRange: decrypting ? undefined : (start, end) => o.transfer.range(url, start, end),
    },
    extras,
  );
  const failed = checks.content.failed;
  const fan = new FanOut([checks]);
  const decrypt = decrypting ? o.decrypt!.open(target, fan, o.signal) : undefined;
  const stated = parseStatedSize(file.size);
  let resumed = false;
  let transferFailure: string | undefined;
  // The transfer failed for a reason that says nothing of the bytes (network, store, service): not-tested, with its exit code.
  let untested: number | undefined;
  let bytes = 0;
  const abortExtras = async (reason: unknown) => {
    await Promise.all(extras.map((s) => s.abort(reason).catch(() => {})));
  };
  try {
    if (o.urls) url = await o.urls.current(backup, file);
    const urls = o.urls;
    const refresh = urls && (async () => (url = await urls.fresh(backup, file)));
    const got = await o.transfer.read(
      // Bytes past what the stated size allows end the transfer: an endless stream cannot keep the pipeline busy.
      { name: file.name, url, size: stated && stated.min === stated.max ? stated.bytes : undefined, maxSize: stated?.max, refresh },
      {
        async write(chunk) {
          bytes += chunk.length;
          o.progress?.add(chunk.length);
          if (decrypt) {
            rawHash!.update(chunk);
            await decrypt.write(chunk);
          } else await fan.write(chunk);
        },
        async restart() {
          bytes = 0;
          if (decrypt) {
            rawHash = createHash('sha256');
            await decrypt.restart();
          } else await fan.restart();
        },
      },
    );
    resumed = got.resumed;
    await decrypt?.end();
    await fan.flush();
  } catch (err) {
    // Could not decrypt (wrong key, scheme or command): no verdict on the backup, the run stops (exit 15).
    if (o.signal.aborted || err instanceof InterruptedError || err instanceof DecryptError) {
      decrypt?.abort();
      await abortExtras(o.signal.reason ?? err);
      throw err;
    }
    if (err instanceof SizeRefusedError && stated) {
      transferFailure = refusedReason(err, stated);
      if (err.announced) bytes = 0;
    } else {
      transferFailure = `download: ${err instanceof Error ? err.message : String(err)}`;
      // A file the store says is not there (404, 410) is a bad backup; anything else kept the test from running.
      const gone = err instanceof CliError && err.exitCode === ExitCode.notFound;
      if (!(err instanceof SizeRefusedError) && !gone) untested = err instanceof CliError && err.exitCode !== ExitCode.refused ? err.exitCode : ExitCode.transient;
    }
  }
  const base = {
    backup_id: backup.id,
    name: file.name,
    stated_size: typeof file.size === 'string' ? file.size : typeof file.size === 'number' ? `${file.size} bytes` : null,
    bytes,
    resumed,
  };
  const timing = () => {
    const seconds = (performance.now() - started) / 1000;
    return { seconds: round(seconds, 3), mb_per_s: seconds > 0 ? round(bytes / MB / seconds, 1) : 0 };
  };
  if (transferFailure) {
    await abortExtras(new Error(transferFailure));
    // Nothing read (refused for its announced size, or no answer): "not-read", never a format of an empty file.
    const format = bytes === 0 ? 'not-read' : 'unknown';
    const result: FileResult = {
      ...base,
      ...timing(),
      verdict: untested !== undefined ? 'not-tested' : 'failed',
      format,
      entries: null,
      content_bytes: null,
      sha256: null,
      first_seen: null,
      reasons: [transferFailure],
      ...(untested !== undefined ? { exit_code: untested } : {}),
    };
    return { result, extras: extras.map((_, i) => ({ ok: false, error: failed.get(i) ?? new Error(transferFailure) })) };
  }
  // The checks and the extra sinks finish side by side (a restore may take a while after the last byte).
  let outcomes: Array<SinkOutcome<R>>;
  let checked: Awaited<ReturnType<ChecksSink['end']>>;
  try {
    // Every decoded byte reaches the sinks before any of them is ended.
    await checks.content.drain();
    [checked, outcomes] = await Promise.all([
      checks.end(),
      Promise.all(
        extras.map(async (s, i): Promise<SinkOutcome<R>> => {
          if (failed.has(i)) {
            await s.abort(failed.get(i)).catch(() => {});
            return { ok: false, error: failed.get(i) };
          }
          try {
            return { ok: true, value: await s.end() };
          } catch (error) {
            return { ok: false, error };
          }
        }),
      ),
    ]);
  } catch (err) {
    await abortExtras(err);
    throw err;
  }
  // A check cut short by Ctrl-C / SIGTERM is no verdict.
  if (o.signal.aborted) throw o.signal.reason ?? new InterruptedError('Interrupted');
  const listed = await o.listed?.();
  const result = judge(base, rawHash ? rawHash.digest('hex') : checked.sha256, checked.finding, file.size, listed, o);
  const sums = result.verdict === 'verified' ? checked.finding.sums : undefined;
  return { result: { ...result, ...timing() }, extras: outcomes, sums };
}

/** Stage "verdict": size against the record, the hash against the ledger, the content finding. */
function judge(
  base: Pick<FileResult, 'backup_id' | 'name' | 'stated_size' | 'bytes' | 'resumed'>,
  sha256: string,
  finding: ContentFinding,
  statedSize: unknown,
  listed: ListedSum | undefined,
  o: { ledger?: HashLedger; now: () => Date },
): Omit<FileResult, 'seconds' | 'mb_per_s'> {
  const known = o.ledger?.lookup(base.backup_id, base.name);
  const reasons: string[] = [];
  const notes: string[] = [];
  if (known && known.sha256 !== sha256) {
    reasons.push(`changed since ${known.first_seen}: the bytes differ from those first verified then (sha256 ${known.sha256.slice(0, 12)}…)`);
  }
  if (listed && listed.sha256 !== sha256) {
    reasons.push(`sha256: the backup's own list ${listed.list} gives ${listed.sha256.slice(0, 12)}…, the bytes read have ${sha256.slice(0, 12)}…`);
  } else if (listed) {
    notes.push(`sha256 as in the backup's own list ${listed.list}`);
  }
  const size = sizeReason(base.bytes, statedSize);
  if (size) reasons.push(size);
  else {
    // Which reading matched, when only the service's other unit fits (issue 30 §3).
    const stated = parseStatedSize(statedSize);
    const unit = stated ? telltaleUnit(stated, base.bytes) : undefined;
    if (unit === 1000) notes.push(`size fits "${stated!.text}" read in 1000s`);
  }
  if (finding.verdict === 'failed') reasons.push(finding.reason ?? `${finding.format}: damaged`);
  const failed = reasons.length > 0;
  // Only bytes that passed every check become the reference for later runs.
  if (!failed) o.ledger?.record(base.backup_id, base.name, sha256, base.bytes, o.now());
  if (!failed && finding.reason) reasons.push(finding.reason);
  if (!failed) reasons.push(...notes);
  return {
    ...base,
    verdict: failed ? 'failed' : finding.verdict,
    format: finding.format,
    entries: finding.entries ?? null,
    content_bytes: finding.content_bytes ?? null,
    sha256,
    first_seen: failed ? (known?.first_seen ?? null) : (o.ledger?.lookup(base.backup_id, base.name)?.first_seen ?? null),
    reasons,
  };
}
