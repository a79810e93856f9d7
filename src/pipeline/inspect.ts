// The content checks of `verify`: the format is sniffed from the first bytes,
// never from the name, and every byte is pushed through the check as it
// arrives (nothing is written to disk, memory stays bounded):
//   gzip      full decompression (CRC32 and length of every member, concatenated members too),
//             then the same sniffing on what it holds;
//   tar       every header checksum (tar-stream), the entries, their total size, the end blocks;
//   zip       the central directory and the CRC-32 of every entry (yauzl), see ZIP_MEMORY_LIMIT;
//   SQL dump  the end marker mysqldump or pg_dump writes last;
//   other     nothing: "not inspected".
// A check never throws: the first problem is kept as the reason, later bytes are ignored.
import { once } from 'node:events';
import { Readable, type Writable } from 'node:stream';
import { createGunzip, crc32 } from 'node:zlib';

export type ContentVerdict = 'verified' | 'not-inspected' | 'encrypted' | 'failed';

export interface ContentFinding {
  /** What the bytes are: tar.gz, tar, gzip, zip, mysqldump.gz, pg_dump, encrypted, data, ... */
  format: string;
  verdict: ContentVerdict;
  reason?: string;
  /** Entries of an archive (tar, zip). */
  entries?: number;
  /** Total size of an archive's entries, or of a gzip's decompressed bytes. */
  content_bytes?: number;
}

export interface Check {
  write(chunk: Buffer): Promise<void>;
  end(): Promise<ContentFinding>;
}

export interface InspectOptions {
  /** The backup is encrypted: no content check, "encrypted: size and hash only". */
  encrypted?: boolean;
  /**
   * Reads a byte range of the file again (a zip past ZIP_MEMORY_LIMIT); without
   * it such a zip is checked as far as its central directory can be found.
   */
  readRange?: (start: number, end: number) => Readable;
  /** Total length, for a zip read by ranges. */
  totalBytes?: () => number;
  /** Bytes a zip is held in memory up to; beyond it, readRange. */
  zipMemoryLimit?: number;
}

/**
 * A zip must be read from its end (the central directory) and then entry by
 * entry: up to this many bytes it is held in memory while it streams past;
 * larger ones are read again by HTTP ranges, entry by entry (150 MB RSS bound).
 */
export const ZIP_MEMORY_LIMIT = 48 * 1024 * 1024;

/** The check for a whole file. */
export function inspect(options: InspectOptions = {}): Check {
  if (options.encrypted) return new OpaqueCheck('encrypted', 'encrypted', 'encrypted: size and hash only');
  return new Sniffer(options, false);
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Resolves when `stream` can take more, or has failed or closed (its own listeners record why). */
function drained(stream: Writable | NodeJS.EventEmitter): Promise<void> {
  if ((stream as { destroyed?: boolean }).destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const events = ['drain', 'close', 'error'] as const;
    const done = () => {
      for (const e of events) stream.off(e, done);
      resolve();
    };
    for (const e of events) stream.on(e, done);
  });
}

/** Buffers the first bytes, picks the check they call for, then forwards everything to it. */
class Sniffer implements Check {
  private head: Buffer[] = [];
  private headLength = 0;
  private chosen?: Check;
  constructor(
    private readonly options: InspectOptions,
    private readonly insideGzip: boolean,
  ) {}

  async write(chunk: Buffer): Promise<void> {
    if (this.chosen) return this.chosen.write(chunk);
    this.head.push(chunk);
    this.headLength += chunk.length;
    if (this.headLength >= 1024) await this.choose();
  }

  private async choose(): Promise<void> {
    const head = Buffer.concat(this.head);
    this.head = [];
    this.chosen = pickCheck(head, this.options, this.insideGzip);
    await this.chosen.write(head);
  }

  async end(): Promise<ContentFinding> {
    if (!this.chosen) await this.choose();
    return this.chosen!.end();
  }
}

function isTarHeader(head: Buffer): boolean {
  if (head.length < 512) return false;
  if (head.toString('latin1', 257, 262) === 'ustar') return true;
  // Old (v7) tar: no magic, but a header whose checksum adds up.
  const stored = parseInt(head.toString('latin1', 148, 156).replace(/\0.*$/, '').trim(), 8);
  if (!Number.isFinite(stored)) return false;
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : head[i]!;
  return sum === stored && sum !== 256;
}

export type DumpKind = 'mysqldump' | 'pg_dump';

export function dumpKind(head: Buffer): DumpKind | undefined {
  const text = head.toString('latin1', 0, 256);
  if (/^-- (MySQL|MariaDB) dump /.test(text)) return 'mysqldump';
  if (/^(--\s*\n)?-- PostgreSQL database dump\b/.test(text)) return 'pg_dump';
  return undefined;
}

function pickCheck(head: Buffer, options: InspectOptions, insideGzip: boolean): Check {
  if (head[0] === 0x1f && head[1] === 0x8b) {
    return insideGzip ? new OpaqueCheck('gzip', 'not-inspected') : new GzipCheck(options);
  }
  if (!insideGzip && head.length >= 4 && head.readUInt32LE(0) === 0x04034b50) return new ZipCheck(options);
  if (!insideGzip && head.length >= 4 && head.readUInt32LE(0) === 0x06054b50) return new ZipCheck(options);
  if (isTarHeader(head)) return new TarCheck();
  const dump = dumpKind(head);
  if (dump) return new DumpCheck(dump);
  return new OpaqueCheck('data', 'not-inspected');
}

/** Size and hash only: encrypted data, or a format backupctl does not read. */
class OpaqueCheck implements Check {
  private bytes = 0;
  constructor(
    private readonly format: string,
    private readonly verdict: ContentVerdict,
    private readonly note?: string,
  ) {}
  async write(chunk: Buffer): Promise<void> {
    this.bytes += chunk.length;
  }
  async end(): Promise<ContentFinding> {
    return { format: this.format, verdict: this.verdict, reason: this.note, content_bytes: this.bytes };
  }
}

/** Keeps the first failure; later writes are ignored. */
abstract class GuardedCheck implements Check {
  protected failure?: string;
  abstract readonly format: string;
  protected abstract take(chunk: Buffer): Promise<void>;
  protected abstract finish(): Promise<ContentFinding>;
  protected abstract explain(err: unknown): string;

  async write(chunk: Buffer): Promise<void> {
    if (this.failure !== undefined) return;
    try {
      await this.take(chunk);
    } catch (err) {
      this.failure ??= this.explain(err);
    }
  }

  async end(): Promise<ContentFinding> {
    if (this.failure === undefined) {
      try {
        const found = await this.finish();
        if (this.failure === undefined) return found;
      } catch (err) {
        this.failure ??= this.explain(err);
      }
    }
    return { format: this.format, verdict: 'failed', reason: this.failure };
  }
}

/** zlib's words for what went wrong, as a reader of the report wants them. */
function gzipReason(err: unknown): string {
  const text = message(err);
  if (/unexpected end of file/i.test(text)) return 'gzip: truncated (the compressed stream ends early)';
  if (/incorrect data check/i.test(text)) return 'gzip: CRC-32 mismatch (incorrect data check): the data is damaged';
  if (/incorrect length check/i.test(text)) return 'gzip: length mismatch (incorrect length check): the data is damaged';
  if (/header crc mismatch/i.test(text)) return 'gzip: header CRC mismatch: the header is damaged';
  return `gzip: ${text}`;
}

/** Decompresses every member (CRC-32 and length checked by zlib) and sniffs what comes out. */
class GzipCheck extends GuardedCheck {
  /** When the gzip layer itself fails, that is the format reported: what it holds may never have been seen. */
  format = 'gzip';
  // Big output chunks: every chunk costs a hop through the inner check, so 16 KB ones (the default) cost 4x the time.
  private readonly gunzip = createGunzip({ chunkSize: 256 * 1024 });
  private readonly inner: Sniffer;
  private readonly pumped: Promise<void>;
  private decompressed = 0;

  constructor(options: InspectOptions) {
    super();
    const inner = new Sniffer(options, true);
    this.inner = inner;
    this.gunzip.on('error', (err) => {
      this.failure ??= gzipReason(err);
    });
    this.pumped = (async () => {
      try {
        for await (const chunk of this.gunzip as AsyncIterable<Buffer>) {
          this.decompressed += chunk.length;
          await inner.write(chunk);
        }
      } catch (err) {
        this.failure ??= gzipReason(err);
      }
    })();
  }

  protected explain(err: unknown): string {
    return gzipReason(err);
  }

  protected async take(chunk: Buffer): Promise<void> {
    if (!this.gunzip.write(chunk)) await drained(this.gunzip);
  }

  protected async finish(): Promise<ContentFinding> {
    this.gunzip.end();
    await this.pumped;
    const inner = await this.inner.end();
    if (this.failure !== undefined) throw new Error(this.failure);
    const format = inner.format === 'data' ? 'gzip' : `${inner.format}.gz`;
    if (inner.verdict === 'failed') return { ...inner, format };
    // The gzip stream itself is whole: content checked even when its inside is not read further.
    return {
      format,
      verdict: 'verified',
      reason: inner.format === 'data' ? 'contents inside the gzip not inspected' : inner.reason,
      entries: inner.entries,
      content_bytes: inner.entries !== undefined ? inner.content_bytes : this.decompressed,
    };
  }
}

interface TarHeader {
  name: string;
  size?: number;
  type?: string | null;
  byteOffset?: number;
}

/** Every header through tar-stream (its checksum), every entry drained, then the two zero blocks. */
class TarCheck extends GuardedCheck {
  format = 'tar';
  private extract?: Writable & NodeJS.EventEmitter;
  private ready?: Promise<void>;
  private entries = 0;
  private contentBytes = 0;
  private seen = 0;
  /** Where the data of the last entry (padded to 512) ends. */
  private lastEnd = 0;
  private extractError?: unknown;

  protected explain(err: unknown): string {
    const text = message(err);
    if (/Invalid tar header\. Maybe/.test(text)) return `tar: header checksum mismatch after ${this.entries} entr${this.entries === 1 ? 'y' : 'ies'}: the archive is damaged`;
    if (/unknown format/.test(text)) return `tar: a header of unknown format after ${this.entries} entries`;
    if (/Unexpected end of data/.test(text)) return `tar: truncated inside entry ${this.entries}`;
    return text.startsWith('tar: ') ? text : `tar: ${text}`;
  }

  private async start(): Promise<void> {
    const { extract } = await import('tar-stream');
    const ex = extract() as unknown as Writable & NodeJS.EventEmitter;
    ex.on('entry', (header: TarHeader, stream: Readable, next: () => void) => {
      this.entries++;
      const size = header.size ?? 0;
      if (header.type === 'file' || header.type === 'contiguous-file') this.contentBytes += size;
      this.lastEnd = (header.byteOffset ?? 0) + Math.ceil(size / 512) * 512;
      stream.on('end', next);
      // The archive's own error is the one reported (on `ex`); an entry cut short says the same.
      stream.on('error', () => {});
      stream.resume();
    });
    ex.on('error', (err) => {
      this.extractError ??= err;
      this.failure ??= this.explain(err);
    });
    this.extract = ex;
  }

  protected async take(chunk: Buffer): Promise<void> {
    this.ready ??= this.start();
    await this.ready;
    this.seen += chunk.length;
    if (this.extractError) throw this.extractError;
    if (!this.extract!.write(chunk)) await drained(this.extract!);
    if (this.extractError) throw this.extractError;
  }

  protected async finish(): Promise<ContentFinding> {
    this.ready ??= this.start();
    await this.ready;
    const ex = this.extract!;
    if (!(ex as { destroyed?: boolean }).destroyed) {
      const ended = Promise.race([once(ex, 'finish'), once(ex, 'close')]).catch(() => {});
      ex.end();
      await ended;
    }
    if (this.extractError) throw this.extractError;
    if (this.entries === 0) throw new Error('tar: no entries');
    if (this.seen - this.lastEnd < 1024) throw new Error('tar: no end-of-archive blocks (the archive was cut after its last entry)');
    return { format: 'tar', verdict: 'verified', entries: this.entries, content_bytes: this.contentBytes };
  }
}

/** The line a dump tool writes last; without it the dump stopped early. */
export const DUMP_END_MARKERS: Record<DumpKind, string> = {
  mysqldump: '-- Dump completed',
  'pg_dump': '-- PostgreSQL database dump complete',
};

class DumpCheck extends GuardedCheck {
  private tail = Buffer.alloc(0);
  private bytes = 0;
  constructor(private readonly kind: DumpKind) {
    super();
  }
  get format(): string {
    return this.kind;
  }
  protected explain(err: unknown): string {
    return message(err);
  }
  protected async take(chunk: Buffer): Promise<void> {
    this.bytes += chunk.length;
    const joined = Buffer.concat([this.tail, chunk]);
    this.tail = joined.subarray(Math.max(0, joined.length - 4096));
  }
  protected async finish(): Promise<ContentFinding> {
    const marker = DUMP_END_MARKERS[this.kind];
    // The marker is on one of the last lines: pg_dump closes with "--" lines after it.
    const lastLines = this.tail.toString('utf8').trimEnd().split('\n').slice(-4);
    if (!lastLines.some((line) => line.startsWith(marker))) {
      throw new Error(`${this.kind}: no end marker ("${marker}"): the dump did not finish`);
    }
    return { format: this.kind, verdict: 'verified', content_bytes: this.bytes };
  }
}

/** The bytes [start, end) of a list of chunks, as slices (no copy). */
function* sliceChunks(chunks: readonly Buffer[], start: number, end: number): Generator<Buffer> {
  let offset = 0;
  for (const c of chunks) {
    const from = Math.max(start, offset);
    const to = Math.min(end, offset + c.length);
    if (from < to) yield c.subarray(from - offset, to - offset);
    offset += c.length;
    if (offset >= end) return;
  }
}

/**
 * yauzl reads the central directory from the end, then every entry, whose
 * CRC-32 we compute (yauzl checks sizes, not CRCs). Held in memory up to the
 * limit; larger zips are read again through `readRange`.
 */
class ZipCheck extends GuardedCheck {
  format = 'zip';
  private chunks: Buffer[] = [];
  private held = 0;
  private total = 0;
  private readonly limit: number;
  constructor(private readonly options: InspectOptions) {
    super();
    this.limit = options.zipMemoryLimit ?? ZIP_MEMORY_LIMIT;
  }
  protected explain(err: unknown): string {
    return `zip: ${message(err)}`;
  }
  protected async take(chunk: Buffer): Promise<void> {
    this.total += chunk.length;
    if (this.held + chunk.length > this.limit) {
      if (!this.options.readRange) throw new Error(`larger than ${Math.round(this.limit / 1048576)} MiB and the storage cannot be read by ranges`);
      this.chunks = [];
      this.held = Infinity;
      return;
    }
    if (this.held !== Infinity) {
      this.chunks.push(chunk);
      this.held += chunk.length;
    }
  }
  protected async finish(): Promise<ContentFinding> {
    const yauzl = await import('yauzl');
    // The chunks as they came (no copy into one buffer: that would hold the zip twice), or the storage again by ranges.
    const chunks = this.chunks;
    const readRange =
      this.held !== Infinity ? (start: number, end: number) => Readable.from(sliceChunks(chunks, start, end + 1)) : this.options.readRange!;
    const total = this.held !== Infinity ? this.held : (this.options.totalBytes?.() ?? this.total);
    class Ranges extends yauzl.RandomAccessReader {
      override _readStreamForRange(start: number, end: number): Readable {
        return readRange(start, end - 1);
      }
    }
    const zip = await yauzl.fromRandomAccessReaderPromise(new Ranges(), total, { lazyEntries: true });
    let entries = 0;
    let contentBytes = 0;
    try {
      for await (const entry of zip.eachEntry()) {
        entries++;
        contentBytes += entry.uncompressedSize;
        if (entry.fileName.endsWith('/')) continue;
        const stream = await zip.openReadStreamPromise(entry);
        let crc = 0;
        for await (const chunk of stream as AsyncIterable<Buffer>) crc = crc32(chunk, crc);
        if (crc >>> 0 !== entry.crc32 >>> 0) throw new Error(`CRC-32 mismatch in ${JSON.stringify(entry.fileName)}: the data is damaged`);
      }
    } finally {
      zip.close();
    }
    return { format: 'zip', verdict: 'verified', entries, content_bytes: contentBytes };
  }
}
