// Downloads the files of a backup from their signed URLs. Each file is
// fetched WITHOUT the Authorization header (the URLs are signed and may be on
// another host), streamed to a temporary name in the target folder and
// renamed when complete; an existing file is never overwritten without
// --force. A broken transfer is retried and resumed with Range where the
// server answers 206.
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import { CliError, ExitCode, TransientError, UsageError } from '../errors.js';
import { abortableSleep } from '../http/retry.js';
import type { Dispatcher } from '../http/undici.js';
import { ProgressBar } from '../output/progress.js';

export interface RemoteFile {
  name: string;
  url: string;
  /** Expected length in bytes when the record says it exactly ("744 bytes"). */
  size?: number;
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

/** "744 bytes" -> 744; "1.2 KB" is not exact, so no size check for it. */
export function exactSize(size: unknown): number | undefined {
  if (typeof size === 'number' && Number.isInteger(size)) return size;
  const m = typeof size === 'string' ? /^\s*(\d+)\s*(bytes?|B)\s*$/i.exec(size) : null;
  return m ? Number(m[1]) : undefined;
}

/** A file name from the service, made safe to write inside `dir`: no folders, no `..`. */
export function safeFileName(name: string): string {
  const base = name.replace(/\\/g, '/').split('/').filter(Boolean).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (!clean || clean === '.' || clean === '..') throw new UsageError(`refusing to write a file named ${JSON.stringify(name)}`);
  return clean;
}

export async function downloadFiles(files: RemoteFile[], o: DownloadOptions): Promise<Downloaded[]> {
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

/** Where a transfer puts its bytes; `restart` when the server sent the whole file again (it ignored Range). */
export interface TransferSink {
  write(chunk: Buffer): Promise<void> | void;
  restart(): Promise<void> | void;
}

export interface TransferOptions {
  signal: AbortSignal;
  timeoutMs: number;
  stderr: Writable;
  debug: boolean;
  /** Attempts per file (1 + retries). */
  attempts?: number;
  retryDelayMs?: number;
  progress?: { add(n: number): void };
}

/**
 * Streams one signed URL into `sink`, WITHOUT the Authorization header (the
 * signed URL is the credential). A broken transfer is retried and resumed with
 * Range from the bytes already taken; a 200 to a Range request starts over.
 * Shared by `jobs backup download` (a temporary file) and `verify` (checks in memory).
 */
export async function transferSignedFile(
  f: { name: string; url: string },
  o: TransferOptions,
  sink: TransferSink,
): Promise<{ bytes: number; resumed: boolean }> {
  const { EnvHttpProxyAgent } = await import('../http/undici.js');
  const dispatcher = new EnvHttpProxyAgent({ connect: { timeout: o.timeoutMs } });
  const attempts = o.attempts ?? 5;
  const label = path.basename(f.name);
  let written = 0;
  let resumed = false;
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        const u = new URL(f.url);
        // No Authorization header here, ever: the signed URL is the credential.
        const headers: Record<string, string> = { accept: '*/*', 'user-agent': 'backupctl' };
        if (written > 0) headers.range = `bytes=${written}-`;
        if (o.debug) o.stderr.write(`[debug] > GET ${u.origin}${u.pathname} (signed URL, no Authorization)${written ? ` Range: bytes=${written}-` : ''}\n`);
        const res = await (dispatcher as unknown as Dispatcher).request({
          origin: u.origin,
          path: u.pathname + u.search,
          method: 'GET',
          headers,
          signal: o.signal,
          headersTimeout: o.timeoutMs,
          bodyTimeout: o.timeoutMs,
        });
        if (o.debug) o.stderr.write(`[debug] < ${res.statusCode}\n`);
        if (res.statusCode === 200 && written > 0) {
          // The server ignored Range: start over.
          written = 0;
          await sink.restart();
        } else if (res.statusCode === 206) {
          resumed = true;
        } else if (res.statusCode !== 200) {
          await res.body.dump();
          const err = new CliError(`GET ${u.origin}${u.pathname}: ${res.statusCode} while downloading ${label}`, res.statusCode === 403 || res.statusCode === 401 ? ExitCode.auth : res.statusCode === 404 ? ExitCode.notFound : res.statusCode >= 500 ? ExitCode.transient : ExitCode.refused);
          if (res.statusCode < 500 && res.statusCode !== 408 && res.statusCode !== 429) throw Object.assign(err, { final: true });
          throw err;
        }
        for await (const chunk of res.body as AsyncIterable<Buffer>) {
          written += chunk.length;
          o.progress?.add(chunk.length);
          await sink.write(chunk);
        }
        return { bytes: written, resumed };
      } catch (err) {
        if (o.signal.aborted) throw o.signal.reason;
        if ((err as { final?: boolean }).final || attempt >= attempts) {
          if (err instanceof CliError) throw err;
          throw new TransientError(`downloading ${label} failed after ${attempt} attempts: ${(err as Error).message}`);
        }
        if (o.debug) o.stderr.write(`[debug] transfer broke at ${written} bytes (${(err as Error).message}); retrying\n`);
        await abortableSleep((o.retryDelayMs ?? 500) * attempt, o.signal);
      }
    }
  } finally {
    await dispatcher.close().catch(() => {});
  }
}

/**
 * Bytes start..end (inclusive) of a signed URL, again without Authorization:
 * verify reads a large zip's central directory and entries this way. A server
 * that does not answer 206 with exactly that range fails the stream.
 */
export function readSignedRange(url: string, start: number, end: number, o: Pick<TransferOptions, 'signal' | 'timeoutMs'>): Readable {
  const out = new PassThrough();
  void (async () => {
    const { EnvHttpProxyAgent } = await import('../http/undici.js');
    const dispatcher = new EnvHttpProxyAgent({ connect: { timeout: o.timeoutMs } });
    try {
      const u = new URL(url);
      const res = await (dispatcher as unknown as Dispatcher).request({
        origin: u.origin,
        path: u.pathname + u.search,
        method: 'GET',
        headers: { accept: '*/*', 'user-agent': 'backupctl', range: `bytes=${start}-${end}` },
        signal: o.signal,
        headersTimeout: o.timeoutMs,
        bodyTimeout: o.timeoutMs,
      });
      const range = /^bytes (\d+)-(\d+)\//.exec(String(res.headers['content-range'] ?? ''));
      if (res.statusCode !== 206 || !range || Number(range[1]) !== start || Number(range[2]) !== end) {
        await res.body.dump();
        throw new Error(`GET ${u.origin}${u.pathname}: asked for bytes ${start}-${end}, got ${res.statusCode} ${String(res.headers['content-range'] ?? '')}`.trim());
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

async function downloadOne(f: RemoteFile & { target: string }, o: DownloadOptions, bar?: ProgressBar): Promise<Downloaded> {
  const temp = path.join(path.dirname(f.target), `.${path.basename(f.target)}.part-${process.pid}`);
  const cleanup = () => rm(temp, { force: true });
  o.signal.addEventListener('abort', () => void cleanup(), { once: true });
  let out = createWriteStream(temp, { flags: 'w', mode: 0o600 });
  const closeOut = () => new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  try {
    const { bytes: written, resumed } = await transferSignedFile({ name: f.target, url: f.url }, { ...o, progress: bar }, {
      async write(chunk) {
        if (!out.write(chunk)) await once(out, 'drain');
      },
      async restart() {
        await closeOut();
        out = createWriteStream(temp, { flags: 'w', mode: 0o600 });
      },
    });
    await closeOut();
    if (f.size !== undefined && written !== f.size) {
      throw new TransientError(`${path.basename(f.target)}: got ${written} bytes, the backup record says ${f.size}`);
    }
    await rename(temp, f.target);
    return { name: f.name, path: f.target, bytes: written, resumed };
  } catch (err) {
    out.destroy();
    await cleanup();
    throw err;
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}
