// The transfer stage of the read pipeline: moves the bytes of one signed URL
// into a ByteSink (src/pipeline/types.ts), with retries, Range resumes, the
// Content-Range checks and the size cap of the backup record. `jobs backup
// download`, `verify` and `restore-test` all read through `transfer`.
// The URL is signed: no Authorization header is ever sent with it.
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CliError, ExitCode, TransientError } from '../errors.js';
import { abortableSleep } from '../http/retry.js';
import type { Dispatcher } from '../http/undici.js';
import { sanitize, writeServiceLine } from '../output/sanitize.js';
import type { ByteSink } from './types.js';

/** Where the bytes of one transfer go: the one sink interface of the pipeline. */
export type TransferSink = ByteSink;

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
  /**
   * The stated size's readings (in 1024s and in 1000s, issue 30 §3): minSize..maxSize spans both,
   * and a length between them that fits neither fails (statedSizeProblem).
   */
  sizeReadings?: ReadonlyArray<{ unit: number; min: number; max: number }>;
  /** Attempts (1 + retries). */
  attempts?: number;
  retryDelayMs?: number;
  /** Called with each chunk's length once the sink took it (progress). */
  onBytes?: (n: number) => void;
  /**
   * Fresh signed URLs (issue 29 §6): asked of the service when the store answers 403 (the URL expired); the
   * transfer goes on from the byte reached with the new URL. Its failure (the service refuses) ends the transfer.
   */
  refresh?: () => Promise<string>;
  /** How many times one transfer may ask for a fresh URL (default 3). */
  maxRefreshes?: number;
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
export class FinalTransferError extends CliError {}

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
  let u = checkDownloadUrl(url, o.label);
  const label = sanitize(o.label);
  let where = sanitize(`${u.origin}${u.pathname}`);
  let refreshes = 0;
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
        } else if (res.statusCode === 403 && o.refresh && refreshes < (o.maxRefreshes ?? 3)) {
          // FRESH URLS (issue 29 §6): a signed URL holds about an hour; a 403 is most likely that. Ask the service
          // for a fresh one and go on from the byte reached (the next request carries Range), without using up an attempt.
          await res.body.dump().catch(() => {});
          refreshes++;
          if (o.debug) writeServiceLine(o.stderr, `[debug] 403 on the signed URL of ${label}: asking the service for a fresh one (${refreshes})`);
          let fresh: string;
          try {
            fresh = await o.refresh();
          } catch (err) {
            if (o.signal.aborted) throw o.signal.reason;
            const code = err instanceof CliError ? err.exitCode : ExitCode.transient;
            throw new FinalTransferError(`the store refused the signed URL of ${label} (403) and the service gave no fresh one: ${sanitize((err as Error).message)}`, code);
          }
          u = checkDownloadUrl(fresh, o.label);
          where = sanitize(`${u.origin}${u.pathname}`);
          attempt--;
          continue;
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
    const sizeProblem = statedSizeProblem(written, o);
    if (sizeProblem) throw new TransientError(`${label}: ${sizeProblem}`);
    return { bytes: written, resumed };
  } finally {
    await dispatcher.close().catch(() => {});
  }
}

// ---------------------------------------------------------------------------
// The stated-size check (issue 30 §3), kept apart from the transfer itself.

/**
 * What is wrong with `written` bytes against the record's stated size, or undefined when it fits:
 * the fewest bytes either reading allows, and (when the readings are given) one reading's range;
 * --debug says which reading matched.
 */
function statedSizeProblem(written: number, o: Pick<TransferOptions, 'minSize' | 'maxSize' | 'sizeReadings' | 'debug' | 'stderr' | 'label'>): string | undefined {
  if (o.minSize !== undefined && written < o.minSize) return `got ${written} bytes, fewer than the ${o.minSize} the backup record's size allows`;
  const readings = o.sizeReadings ?? [];
  if (!readings.length) return undefined;
  const fit = readings.find((r) => written >= r.min && written <= r.max);
  if (!fit) {
    return `got ${written} bytes, which fits the backup record's size neither read in 1024s nor in 1000s (${readings.map((r) => `${r.min}..${r.max} in ${r.unit}s`).join(', ')})`;
  }
  if (o.debug && readings.length > 1) writeServiceLine(o.stderr, `[debug] ${o.label}: ${written} bytes fit the stated size read in ${fit.unit}s (${fit.min}..${fit.max})`);
  return undefined;
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

/** The pipeline's Transfer over signed URLs: `transfer` for a whole file, `readSignedRange` for a zip read again by ranges. */
export function signedUrlTransfer(o: Pick<TransferOptions, 'signal' | 'timeoutMs' | 'stderr' | 'debug' | 'attempts' | 'retryDelayMs'>): import('./types.js').Transfer {
  return {
    read: (file, sink) => transfer(file.url, sink, { ...o, label: file.name, size: file.size, maxSize: file.maxSize, refresh: file.refresh }),
    range: (url, start, end) => readSignedRange(url, start, end, { ...o, label: 'the zip being read by ranges' }),
  };
}
