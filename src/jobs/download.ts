// Downloads the files of a backup from their signed URLs. Each file is
// fetched WITHOUT the Authorization header (the URLs are signed and may be on
// another host), streamed to a temporary file in the target folder and put in
// place when complete; an existing file is never overwritten without --force.
// A broken transfer is retried and resumed with Range where the server answers 206.
//
// Two layers: `transfer` moves the bytes of one signed URL into any
// TransferSink (retries, Range resumes, the Content-Range and size checks);
// `downloadFiles` gives it a private temporary file per file. Other sinks
// (a digest that writes nothing, stdout) reuse `transfer` as it is.
import { constants as fsConstants } from 'node:fs';
import { link, lstat, mkdir, open, rename, rm, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CliError, ExitCode, TransientError, UsageError } from '../errors.js';
import { abortableSleep } from '../http/retry.js';
import type { Dispatcher } from '../http/undici.js';
import { sanitize, writeServiceLine } from '../output/sanitize.js';
import { ProgressBar } from '../output/progress.js';

export interface RemoteFile {
  name: string;
  url: string;
  /** Expected length in bytes when the record says it exactly ("744 bytes"). */
  size?: number;
  /** The range a rounded stated size allows ("12.5 MB"): src/backups/size.ts. */
  minSize?: number;
  maxSize?: number;
}

export interface DownloadOptions {
  dir: string;
  force: boolean;
  parallel: number;
  signal: AbortSignal;
  timeoutMs: number;
  stderr: Writable;
  /** Progress bar on stderr (a TTY). */
  progress: boolean;
  debug: boolean;
  /** Attempts per file (1 + retries). */
  attempts?: number;
  retryDelayMs?: number;
}

export interface Downloaded {
  name: string;
  path: string;
  bytes: number;
  resumed: boolean;
}

/** "744 bytes" -> 744; "1.2 KB" is not exact (it bounds the length instead): the one parser, src/backups/size.ts. */
export { exactSize } from '../backups/size.js';

/** A file name from the service, made safe to write inside `dir`: no folders, no `..`. */
export function safeFileName(name: string): string {
  const base = name.replace(/\\/g, '/').split('/').filter(Boolean).pop() ?? '';
  // Control characters, escapes and bidi overrides (U+202E shows a name reversed) go.
  const clean = sanitize(base).trim();
  if (!clean || clean === '.' || clean === '..') throw new UsageError(`refusing to write a file named ${JSON.stringify(name)}`);
  return clean;
}

/** Where the bytes of one transfer go. */
export interface TransferSink {
  /** Drops everything written so far: the next bytes are the file's first. */
  restart(): Promise<void>;
  write(chunk: Buffer): Promise<void>;
}

export interface TransferOptions {
  signal: AbortSignal;
  timeoutMs: number;
  stderr: Writable;
  debug: boolean;
  /** The file's name, for messages. */
  label: string;
  /** The length the backup record states; more bytes than this are refused at once. */
  size?: number;
  /** The most bytes an imprecise stated size allows ("12.5 MB": up to 12.55 MB); more are refused at once. */
  maxSize?: number;
  /** The fewest bytes an imprecise stated size allows ("12.5 MB": 12.45 MB); a shorter file fails. */
  minSize?: number;
  /** Attempts (1 + retries). */
  attempts?: number;
  retryDelayMs?: number;
  /** Called with each chunk's length once the sink took it (progress). */
  onBytes?: (n: number) => void;
}

export interface Transferred {
  bytes: number;
  resumed: boolean;
}

/**
 * A download URL must be absolute http(s): `file:`, `data:` or a relative URL from
 * the service is refused before anything is fetched (and never retried).
 */
export function checkDownloadUrl(url: string, label: string): URL {
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    // Relative or malformed.
  }
  if (!u || (u.protocol !== 'https:' && u.protocol !== 'http:')) {
    const scheme = u ? u.protocol : 'a relative or malformed URL';
    throw new CliError(`the service gave ${sanitize(label)} a download URL that is not http(s) (${sanitize(scheme)}); refusing to fetch it`, ExitCode.refused);
  }
  return u;
}

/** A failure of one attempt that another attempt cannot mend. */
class FinalTransferError extends CliError {}

/** The file is not the size its record states: announced so (nothing read), or the body passed it (`bytes` read, stopped). */
export class SizeRefusedError extends FinalTransferError {
  constructor(
    message: string,
    readonly bytes: number,
    readonly announced: boolean,
  ) {
    super(message, ExitCode.transient);
  }
}

/** `bytes 40000-99999/100000` -> its parts; `*` for an unknown total. */
function parseContentRange(value: string | string[] | undefined): { start: number; end: number; total?: number } | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  const m = v ? /^\s*bytes\s+(\d+)-(\d+)\/(\d+|\*)\s*$/i.exec(v) : null;
  if (!m) return undefined;
  const [start, end] = [Number(m[1]), Number(m[2])];
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) return undefined;
  return { start, end, total: m[3] === '*' ? undefined : Number(m[3]) };
}

function headerInt(value: string | string[] | undefined): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v !== undefined && /^\s*\d+\s*$/.test(v) ? Number(v) : undefined;
}

/**
 * Fetches one signed URL into `sink`, with retries. A retry after a break asks
 * for the rest with Range; the 206 must say (Content-Range) that it starts
 * exactly where the sink stands and belongs to a file of the same total length
 * as the first answer said, else the transfer starts over from byte 0. Bytes
 * beyond the record's stated size, or beyond the length the answer declared,
 * end the transfer at once.
 */
export async function transfer(url: string, sink: TransferSink, o: TransferOptions): Promise<Transferred> {
  const u = checkDownloadUrl(url, o.label);
  const label = sanitize(o.label);
  const where = sanitize(`${u.origin}${u.pathname}`);
  const { EnvHttpProxyAgent } = await import('../http/undici.js');
  const dispatcher = new EnvHttpProxyAgent({ connect: { timeout: o.timeoutMs } });
  const attempts = o.attempts ?? 5;
  let written = 0;
  let resumed = false;
  // The file's total length as the first answer gave it.
  let total: number | undefined;
  const startOver = async () => {
    if (written > 0) await sink.restart();
    written = 0;
    total = undefined;
  };
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        // No Authorization header here, ever: the signed URL is the credential.
        const headers: Record<string, string> = { accept: '*/*', 'user-agent': 'backupctl' };
        if (written > 0) headers.range = `bytes=${written}-`;
        if (o.debug) writeServiceLine(o.stderr, `[debug] > GET ${where} (signed URL, no Authorization)${written ? ` Range: bytes=${written}-` : ''}`);
        const res = await (dispatcher as unknown as Dispatcher).request({
          origin: u.origin,
          path: u.pathname + u.search,
          method: 'GET',
          headers,
          signal: o.signal,
          headersTimeout: o.timeoutMs,
          bodyTimeout: o.timeoutMs,
        });
        if (o.debug) writeServiceLine(o.stderr, `[debug] < ${res.statusCode}`);
        let answerTotal: number | undefined;
        if (res.statusCode === 200) {
          // A whole file: the server ignored Range (or none was sent).
          await startOver();
          answerTotal = headerInt(res.headers['content-length']);
        } else if (res.statusCode === 206) {
          const range = parseContentRange(res.headers['content-range']);
          if (!range || range.start !== written) {
            // Not the rest of what we hold: appending it would corrupt the file.
            await res.body.dump().catch(() => {});
            const was = written;
            await startOver();
            throw new Error(`the resume at byte ${was} was answered with ${range ? `bytes ${range.start}-${range.end}` : 'no usable Content-Range'}; starting over`);
          }
          answerTotal = range.total;
          resumed = true;
        } else {
          await res.body.dump().catch(() => {});
          const status = res.statusCode;
          const redirect = status >= 300 && status < 400;
          const code = status === 403 || status === 401 ? ExitCode.auth : status === 404 ? ExitCode.notFound : status >= 500 ? ExitCode.transient : ExitCode.refused;
          const message = `GET ${where}: ${status} while downloading ${label}${redirect ? ' (redirects are not followed)' : ''}`;
          if (status < 500 && status !== 408 && status !== 429) throw new FinalTransferError(message, code);
          throw new CliError(message, code);
        }
        if (answerTotal !== undefined) {
          if (total !== undefined && answerTotal !== total) {
            await res.body.dump().catch(() => {});
            const was = total;
            await startOver();
            throw new Error(`the file's length changed from ${was} to ${answerTotal} bytes between attempts; starting over`);
          }
          total = answerTotal;
          if (o.size !== undefined && total !== o.size) {
            await res.body.dump().catch(() => {});
            throw new SizeRefusedError(`${label}: the server announces ${total} bytes, the backup record says ${o.size}`, total, true);
          }
          if (o.maxSize !== undefined && total > o.maxSize) {
            await res.body.dump().catch(() => {});
            throw new SizeRefusedError(`${label}: the server announces ${total} bytes, more than the ${o.maxSize} the backup record allows`, total, true);
          }
        }
        const recordLimit = o.size ?? o.maxSize;
        const limit = Math.min(recordLimit ?? Infinity, total ?? Infinity);
        for await (const chunk of res.body as AsyncIterable<Buffer>) {
          if (written + chunk.length > limit) {
            res.body.destroy();
            const record = limit === recordLimit;
            const message = `${label}: the server sent more than the ${limit} bytes ${record ? `the backup record ${o.size !== undefined ? 'states' : 'allows'}` : 'it announced'}; stopped`;
            if (record) throw new SizeRefusedError(message, written + chunk.length, false);
            throw new FinalTransferError(message, ExitCode.transient);
          }
          await sink.write(chunk);
          written += chunk.length;
          o.onBytes?.(chunk.length);
        }
        if (total !== undefined && written !== total) throw new Error(`the answer ended at ${written} of ${total} bytes`);
        break;
      } catch (err) {
        if (o.signal.aborted) throw o.signal.reason;
        if (err instanceof FinalTransferError) throw err;
        if (attempt >= attempts) {
          if (err instanceof CliError) throw err;
          throw new TransientError(`downloading ${label} failed after ${attempt} attempts: ${sanitize((err as Error).message)}`);
        }
        if (o.debug) writeServiceLine(o.stderr, `[debug] transfer broke at ${written} bytes (${(err as Error).message}); retrying`);
        await abortableSleep((o.retryDelayMs ?? 500) * attempt, o.signal);
      }
    }
    if (o.size !== undefined && written !== o.size) {
      throw new TransientError(`${label}: got ${written} bytes, the backup record says ${o.size}`);
    }
    if (o.minSize !== undefined && written < o.minSize) {
      throw new TransientError(`${label}: got ${written} bytes, fewer than the ${o.minSize} the backup record's size allows`);
    }
    return { bytes: written, resumed };
  } finally {
    await dispatcher.close().catch(() => {});
  }
}

/**
 * Bytes start..end (inclusive) of a signed URL, again without Authorization:
 * verify reads a large zip's central directory and entries this way. An answer
 * that is not a 206 of exactly that range fails the stream.
 */
export function readSignedRange(url: string, start: number, end: number, o: Pick<TransferOptions, 'signal' | 'timeoutMs' | 'label'>): Readable {
  const out = new PassThrough();
  void (async () => {
    const { EnvHttpProxyAgent } = await import('../http/undici.js');
    const dispatcher = new EnvHttpProxyAgent({ connect: { timeout: o.timeoutMs } });
    try {
      const u = checkDownloadUrl(url, o.label);
      const res = await (dispatcher as unknown as Dispatcher).request({
        origin: u.origin,
        path: u.pathname + u.search,
        method: 'GET',
        headers: { accept: '*/*', 'user-agent': 'backupctl', range: `bytes=${start}-${end}` },
        signal: o.signal,
        headersTimeout: o.timeoutMs,
        bodyTimeout: o.timeoutMs,
      });
      const range = parseContentRange(res.headers['content-range']);
      if (res.statusCode !== 206 || range?.start !== start || range.end !== end) {
        await res.body.dump().catch(() => {});
        throw new Error(`GET ${sanitize(u.origin + u.pathname)}: asked for bytes ${start}-${end}, got ${res.statusCode}${range ? ` bytes ${range.start}-${range.end}` : ''}`);
      }
      await pipeline(res.body, out);
    } catch (err) {
      out.destroy(err as Error);
    } finally {
      await dispatcher.close().catch(() => {});
    }
  })();
  return out;
}

export async function downloadFiles(files: RemoteFile[], o: DownloadOptions): Promise<Downloaded[]> {
  // Refuse a file: or data: URL before anything is fetched or created.
  for (const f of files) checkDownloadUrl(f.url, f.name);
  await mkdir(o.dir, { recursive: true });
  const targets = files.map((f) => ({ ...f, target: path.join(o.dir, safeFileName(f.name)) }));
  const seen = new Set<string>();
  for (const t of targets) {
    if (seen.has(t.target)) throw new UsageError(`two files of the backup are named ${path.basename(t.target)}`);
    seen.add(t.target);
    if (!o.force && (await exists(t.target))) {
      throw new UsageError(`${t.target} exists; pass --force to overwrite it`, ['Nothing was downloaded.']);
    }
  }
  const bar = o.progress ? new ProgressBar(o.stderr, targets.reduce((n, t) => n + (t.size ?? 0), 0), targets.length) : undefined;
  const results: Downloaded[] = new Array(targets.length);
  let next = 0;
  const worker = async () => {
    while (next < targets.length) {
      const i = next++;
      results[i] = await downloadOne(targets[i]!, o, bar);
      bar?.fileDone();
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(o.parallel, targets.length)) }, worker));
  } finally {
    bar?.end();
  }
  return results;
}

export interface StreamOptions extends Omit<DownloadOptions, 'dir' | 'force' | 'parallel'> {}

/**
 * One file to a stream (stdout: `--output -`), through the same `transfer`.
 * Bytes written cannot be taken back, so when a retry has to start over
 * (the server ignored Range, or answered another range), the bytes already
 * written are skipped in the new answer and must hash the same as those
 * written; anything else ends the command with an error: never a silently
 * short or spliced stream.
 */
export async function streamFile(file: RemoteFile, out: Writable, o: StreamOptions): Promise<Transferred> {
  checkDownloadUrl(file.url, file.name);
  const { createHash } = process.getBuiltinModule('node:crypto');
  const label = sanitize(file.name);
  let emitted = 0;
  const hash = createHash('sha256');
  let replay: { skip: number; expected: string; hash: ReturnType<typeof createHash> } | undefined;
  const put = (chunk: Buffer) =>
    new Promise<void>((resolve, reject) => {
      // The reader went away (EPIPE) or the stream broke: another attempt cannot mend that.
      out.write(chunk, (err) => (err ? reject(new FinalTransferError(`writing ${label} failed: ${sanitize(err.message)}`, ExitCode.refused)) : resolve()));
    });
  const sink: TransferSink = {
    async restart() {
      if (emitted > 0) replay = { skip: emitted, expected: hash.copy().digest('hex'), hash: createHash('sha256') };
    },
    async write(chunk) {
      if (replay) {
        const take = Math.min(replay.skip, chunk.length);
        replay.hash.update(chunk.subarray(0, take));
        replay.skip -= take;
        chunk = chunk.subarray(take);
        if (replay.skip === 0) {
          if (replay.hash.digest('hex') !== replay.expected) {
            throw new FinalTransferError(`${label}: the file changed while it was being sent (its first ${emitted} bytes, already written, differ); the output is incomplete`, ExitCode.transient);
          }
          replay = undefined;
        }
        if (!chunk.length) return;
      }
      hash.update(chunk);
      await put(chunk);
      emitted += chunk.length;
    },
  };
  const bar = o.progress ? new ProgressBar(o.stderr, file.size ?? 0, 1) : undefined;
  try {
    const got = await transfer(file.url, sink, {
      signal: o.signal,
      timeoutMs: o.timeoutMs,
      stderr: o.stderr,
      debug: o.debug,
      label: file.name,
      size: file.size,
      minSize: file.minSize,
      maxSize: file.maxSize,
      attempts: o.attempts,
      retryDelayMs: o.retryDelayMs,
      onBytes: (n) => bar?.add(n),
    });
    if (replay) throw new TransientError(`${label}: the answer ended before the bytes already written; the output is incomplete`);
    bar?.fileDone();
    return { bytes: emitted, resumed: got.resumed };
  } finally {
    bar?.end();
  }
}

let randomBytes: typeof import('node:crypto').randomBytes | undefined;

/**
 * A new private file beside `target`: a random name, created exclusively
 * (O_EXCL: a file or symlink already there makes it fail) and without
 * following a symlink, mode 0600. Another local user cannot predict the name
 * or make it point elsewhere; the descriptor is kept for every attempt.
 */
async function createPartFile(target: string): Promise<{ path: string; fh: FileHandle }> {
  randomBytes ??= process.getBuiltinModule('node:crypto').randomBytes;
  const flags = fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | (fsConstants.O_NOFOLLOW ?? 0);
  for (let i = 0; ; i++) {
    const temp = path.join(path.dirname(target), `.${path.basename(target)}.part-${randomBytes(8).toString('hex')}`);
    try {
      return { path: temp, fh: await open(temp, flags, 0o600) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || i >= 4) throw err;
    }
  }
}

/** A sink writing at explicit offsets into an open file. */
function fileSink(fh: FileHandle): TransferSink {
  let position = 0;
  return {
    async restart() {
      await fh.truncate(0);
      position = 0;
    },
    async write(chunk) {
      let off = 0;
      while (off < chunk.length) {
        const { bytesWritten } = await fh.write(chunk, off, chunk.length - off, position);
        off += bytesWritten;
        position += bytesWritten;
      }
    },
  };
}

/**
 * Puts the finished temporary file at `target`. Without --force, link(2) fails
 * if anything (a file, a symlink, even a dangling one) appeared there since the
 * first check; with --force, rename(2) replaces what is there (a symlink itself,
 * never the file it points to).
 */
async function putInPlace(temp: string, target: string, force: boolean): Promise<void> {
  if (!force) {
    try {
      await link(temp, target);
      await unlink(temp);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw new UsageError(`${target} exists; pass --force to overwrite it`);
      // A filesystem without hard links: check, then rename.
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EXDEV') throw err;
      if (await exists(target)) throw new UsageError(`${target} exists; pass --force to overwrite it`);
    }
  }
  await rename(temp, target);
}

async function downloadOne(f: RemoteFile & { target: string }, o: DownloadOptions, bar?: ProgressBar): Promise<Downloaded> {
  const part = await createPartFile(f.target);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await part.fh.close().catch(() => {});
  };
  const cleanup = async () => {
    await close();
    await rm(part.path, { force: true });
  };
  const onAbort = () => void cleanup();
  o.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const got = await transfer(f.url, fileSink(part.fh), {
      signal: o.signal,
      timeoutMs: o.timeoutMs,
      stderr: o.stderr,
      debug: o.debug,
      label: path.basename(f.target),
      size: f.size,
      minSize: f.minSize,
      maxSize: f.maxSize,
      attempts: o.attempts,
      retryDelayMs: o.retryDelayMs,
      onBytes: (n) => bar?.add(n),
    });
    await part.fh.sync();
    await close();
    await putInPlace(part.path, f.target, o.force);
    return { name: f.name, path: f.target, bytes: got.bytes, resumed: got.resumed };
  } catch (err) {
    await cleanup();
    throw err;
  } finally {
    o.signal.removeEventListener('abort', onAbort);
  }
}

/** Anything at `p`, a dangling symlink included. */
async function exists(p: string): Promise<boolean> {
  try {
    await lstat(p);
    return true;
  } catch {
    return false;
  }
}
