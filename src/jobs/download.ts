// Downloads the files of a backup from their signed URLs. Each file is
// fetched WITHOUT the Authorization header (the URLs are signed and may be on
// another host), streamed to a temporary file in the target folder and put in
// place when complete; an existing file is never overwritten without --force.
// A broken transfer is retried and resumed with Range where the server answers 206.
//
// Two layers: `transfer` (src/pipeline/transfer.ts, the read pipeline's
// transfer stage, shared with verify and restore-test) moves the bytes of one
// signed URL into any ByteSink (retries, Range resumes, the Content-Range and
// size checks); `downloadFiles` gives it a private temporary file per file,
// `streamFile` stdout.
import { constants as fsConstants } from 'node:fs';
import { access, link, lstat, mkdir, open, rename, rm, stat, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { ExitCode, TransientError, UsageError } from '../errors.js';
import { sanitize } from '../output/sanitize.js';
import { ProgressBar } from '../output/progress.js';
import { checkDownloadUrl, FinalTransferError, transfer, type TransferSink, type Transferred } from '../pipeline/transfer.js';
import type { Decryptor } from '../pipeline/decrypt.js';

// The transfer stage lives in the pipeline; these names stay importable from here.

export interface RemoteFile {
  name: string;
  url: string;
  /** Expected length in bytes when the record says it exactly ("744 bytes"). */
  size?: number;
  /** The range a rounded stated size allows ("12.5 MB"): src/backups/size.ts. */
  minSize?: number;
  maxSize?: number;
  sizeReadings?: ReadonlyArray<{ unit: number; min: number; max: number }>;
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
  /** Decrypt on the way (--private-key, --decrypt-with): the file written holds the plaintext. */
  decrypt?: { decryptor: Decryptor; backupId: string; encryptionKey: string | null };
  /**
   * Fresh signed URLs (issue 29 §6): `at` when the files' URLs were got; a file starting more than `maxAgeMs`
   * after gets a fresh one first, and a 403 from the store is answered with a fresh one (`fresh(name)`).
   */
  urls?: { at: number; maxAgeMs: number; fresh(name: string): Promise<string> };
}

export interface Downloaded {
  name: string;
  path: string;
  bytes: number;
  resumed: boolean;
}

/** "744 bytes" -> 744; "1.2 KB" is not exact (it bounds the length instead): the one parser, src/backups/size.ts. */

/** A file name from the service, made safe to write inside `dir`: no folders, no `..`. */
export function safeFileName(name: string): string {
  const base = name.replace(/\\/g, '/').split('/').filter(Boolean).pop() ?? '';
  // Control characters, escapes and bidi overrides (U+202E shows a name reversed) go.
  const clean = sanitize(base).trim();
  if (!clean || clean === '.' || clean === '..') throw new UsageError(`refusing to write a file named ${JSON.stringify(name)}`);
  return clean;
}


/**
 * --dir: a folder, or a path where one can be made (the nearest folder that exists is writable). Else exit 2
 * before anything is sent, not an unexpected failure once the backup is chosen.
 */
export async function checkDownloadDir(dir: string): Promise<void> {
  let at = path.resolve(dir);
  for (;;) {
    const st = await stat(at).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' || err.code === 'ENOTDIR' ? undefined : err));
    if (st instanceof Error) throw new UsageError(`invalid value "${dir}" for --dir: ${at}: ${(st as NodeJS.ErrnoException).code ?? st.message}`);
    if (st) {
      if (!st.isDirectory()) throw new UsageError(`invalid value "${dir}" for --dir: ${at} is not a folder`);
      const writable = await access(at, fsConstants.W_OK).then(() => true, () => false);
      if (!writable) throw new UsageError(`invalid value "${dir}" for --dir: cannot write in ${at}`);
      return;
    }
    const up = path.dirname(at);
    if (up === at) return;
    at = up;
  }
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

/** The URL a file starts with: a fresh one when the files' URLs are older than allowed (a long download of many files). */
async function startUrl(file: RemoteFile, o: Pick<DownloadOptions, 'urls'>): Promise<string> {
  if (!o.urls || Date.now() - o.urls.at <= o.urls.maxAgeMs) return file.url;
  const url = await o.urls.fresh(file.name);
  checkDownloadUrl(url, file.name);
  return url;
}

/**
 * DECRYPT (issue 29 §5): the sink the transfer writes the raw bytes into. With
 * a decryptor, a decrypt stage in front of `sink` (src/pipeline/decrypt.ts);
 * `end` writes the rest of the plaintext (call it after the transfer).
 */
function decrypting(sink: TransferSink, name: string, o: Pick<DownloadOptions, 'decrypt' | 'signal'>): { sink: TransferSink; end(): Promise<void>; abort(): void } {
  const d = o.decrypt;
  const target = d && { backupId: d.backupId, encryptionKey: d.encryptionKey, fileName: name };
  if (!d || !target || !d.decryptor.applies(target)) return { sink, end: async () => {}, abort() {} };
  const stage = d.decryptor.open(target, sink, o.signal);
  return { sink: stage, end: () => stage.end(), abort: () => stage.abort() };
}

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
  const stage = decrypting(sink, file.name, o);
  try {
    const got = await transfer(await startUrl(file, o), stage.sink, {
      signal: o.signal,
      timeoutMs: o.timeoutMs,
      stderr: o.stderr,
      debug: o.debug,
      label: file.name,
      size: file.size,
      minSize: file.minSize,
      maxSize: file.maxSize,
      sizeReadings: file.sizeReadings,
      attempts: o.attempts,
      retryDelayMs: o.retryDelayMs,
      onBytes: (n) => bar?.add(n),
      refresh: o.urls && (() => o.urls!.fresh(file.name)),
    });
    await stage.end();
    if (replay) throw new TransientError(`${label}: the answer ended before the bytes already written; the output is incomplete`);
    bar?.fileDone();
    return { bytes: emitted, resumed: got.resumed };
  } catch (err) {
    stage.abort();
    throw err;
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
  const stage = decrypting(fileSink(part.fh), f.name, o);
  try {
    const got = await transfer(await startUrl(f, o), stage.sink, {
      signal: o.signal,
      timeoutMs: o.timeoutMs,
      stderr: o.stderr,
      debug: o.debug,
      label: path.basename(f.target),
      size: f.size,
      minSize: f.minSize,
      maxSize: f.maxSize,
      sizeReadings: f.sizeReadings,
      attempts: o.attempts,
      retryDelayMs: o.retryDelayMs,
      onBytes: (n) => bar?.add(n),
      refresh: o.urls && (() => o.urls!.fresh(f.name)),
    });
    await stage.end();
    await part.fh.sync();
    await close();
    await putInPlace(part.path, f.target, o.force);
    return { name: f.name, path: f.target, bytes: got.bytes, resumed: got.resumed };
  } catch (err) {
    stage.abort();
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
