// The content checks of `verify`: the format is sniffed from the first bytes,
// never from the name, and every byte is pushed through the check as it
// arrives (nothing is written to disk, memory stays bounded):
//   gzip      full decompression (CRC32 and length of every member, concatenated members too),
//             then the same sniffing on what it holds;
//   tar       every header checksum (tar-stream), the entries, their total size, the end blocks;
//   zip       the central directory and the CRC-32 of every entry (yauzl), see ZIP_MEMORY_LIMIT;
//   SQL dump  the end marker mysqldump or pg_dump writes last;
//   sha256 list  every line "<sha256>  <name>" (a backup's own .sha256 / SHA256SUMS: the
//             pipeline then checks the backup's other files against it);
//   encrypted an OpenSSL `enc` ("Salted__"), OpenPGP or age header: size and hash only;
//   other     nothing: "not inspected" ("encrypted" when the record names an encryption key).
// The bytes decide, never the record: a plain tar.gz in a backup whose record
// has an encryption_key is checked in full.
// Decompression bombs are bounded (InspectBounds, each with an environment
// variable to raise it, see docs/verify.md): overlapping zip entries are
// refused, a zip's entries and inflated bytes are capped, and a gzip may not
// expand past a ratio. Every long loop watches `signal` (Ctrl-C, SIGTERM).
// A check never throws: the first problem is kept as the reason, later bytes are ignored.
import { once } from 'node:events';
import { Readable, type Writable } from 'node:stream';
import { createGunzip, crc32 } from 'node:zlib';
import { BOUND_SETTINGS, DEFAULT_BOUNDS, gzipRatioRefusal, type InspectBounds } from './bounds.js';

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
  /** A sha256 list: name as listed -> sha256 (lower case). */
  sums?: Map<string, string>;
}

export interface Check {
  write(chunk: Buffer): Promise<void>;
  end(): Promise<ContentFinding>;
}

export interface InspectOptions {
  /** The record names an encryption key: bytes of no known format are taken as "encrypted", not "not inspected". */
  encrypted?: boolean;
  bounds?: Partial<InspectBounds>;
  /** Aborted on Ctrl-C / SIGTERM: every long loop stops. */
  signal?: AbortSignal;
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
  return new Sniffer(options, false);
}

function boundsOf(options: InspectOptions): InspectBounds {
  return { ...DEFAULT_BOUNDS, ...options.bounds };
}

/** Lets timers, signals and I/O run between long stretches of work. */
const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

function stopIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new Error('interrupted');
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
  // mariadb-dump since 10.11.8 / 11.4 opens with its sandbox line before the banner.
  if (/^(\/\*M!999999\\- enable the sandbox mode \*\/ ?\r?\n)?-- (MySQL|MariaDB) dump /.test(text)) return 'mysqldump';
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
  const encryption = encryptionHeader(head);
  if (encryption) return new OpaqueCheck(encryption.format, 'encrypted', `encrypted (${encryption.what}): size and hash only`);
  if (!insideGzip && isSha256List(head)) return new Sha256ListCheck();
  if (!insideGzip && options.encrypted) {
    return new OpaqueCheck('data', 'encrypted', 'no known format, and the record names an encryption key: taken as encrypted, size and hash only');
  }
  return new OpaqueCheck('data', 'not-inspected', 'no known format: size and hash only');
}

/** An OpenPGP message starts with a public-key (tag 1) or symmetric-key (tag 3) encrypted session key packet. */
function isOpenPgp(head: Buffer): boolean {
  if (head.length < 4) return false;
  const b = head[0]!;
  if (!(b & 0x80)) return false;
  let tag: number;
  let at: number;
  if (b & 0x40) {
    tag = b & 0x3f;
    const first = head[1]!;
    at = first < 192 ? 2 : first < 224 ? 3 : first === 255 ? 6 : -1;
  } else {
    tag = (b >> 2) & 0x0f;
    const lengthType = b & 3;
    at = lengthType === 3 ? -1 : 1 + [1, 2, 4][lengthType]!;
  }
  if (at < 0 || at >= head.length) return false;
  const version = head[at]!;
  return (tag === 1 && (version === 3 || version === 6)) || (tag === 3 && version >= 4 && version <= 6);
}

/** The header of a known encryption format, from the first bytes. */
export function encryptionHeader(head: Buffer): { format: string; what: string } | undefined {
  const text = head.toString('latin1', 0, 64);
  if (text.startsWith('Salted__')) return { format: 'openssl-enc', what: 'OpenSSL enc, "Salted__"' };
  if (text.startsWith('age-encryption.org/v1\n') || text.startsWith('-----BEGIN AGE ENCRYPTED FILE-----')) return { format: 'age', what: 'age' };
  if (text.startsWith('-----BEGIN PGP MESSAGE-----')) return { format: 'openpgp', what: 'OpenPGP, armored' };
  if (isOpenPgp(head)) return { format: 'openpgp', what: 'OpenPGP' };
  return undefined;
}

const SHA256_LINE = /^([0-9a-fA-F]{64}) [ *](.+)$/;

/** A sha256sum list: its first line is "<64 hex>  <name>". */
function isSha256List(head: Buffer): boolean {
  const first = head.toString('latin1', 0, Math.min(head.length, 4096)).split('\n', 1)[0]!.replace(/\r$/, '');
  return SHA256_LINE.test(first);
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
  if (text.startsWith('gzip: ')) return text;
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
  private compressed = 0;

  constructor(private readonly options: InspectOptions) {
    super();
    const inner = new Sniffer(options, true);
    this.inner = inner;
    const { maxGzipRatio } = boundsOf(options);
    this.gunzip.on('error', (err) => {
      this.failure ??= gzipReason(err);
    });
    this.pumped = (async () => {
      try {
        for await (const chunk of this.gunzip as AsyncIterable<Buffer>) {
          this.decompressed += chunk.length;
          stopIfAborted(options.signal);
          // Judged against the compressed bytes given so far (zlib has read no more): never too early.
          const bomb = gzipRatioRefusal(this.compressed, this.decompressed, maxGzipRatio);
          if (bomb) throw new Error(bomb);
          await inner.write(chunk);
        }
      } catch (err) {
        this.failure ??= gzipReason(err);
        this.gunzip.destroy();
      }
    })();
  }

  protected explain(err: unknown): string {
    return gzipReason(err);
  }

  protected async take(chunk: Buffer): Promise<void> {
    this.compressed += chunk.length;
    if (this.gunzip.destroyed) return;
    if (!this.gunzip.write(chunk)) await drained(this.gunzip);
  }

  protected async finish(): Promise<ContentFinding> {
    if (!this.gunzip.destroyed) this.gunzip.end();
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

const END_BLOCKS_MISSING = 'tar: no end-of-archive blocks (the archive was cut after its last entry)';

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
    if (/Unexpected end of data/.test(text)) {
      // Cut past the last entry's data (inside the end blocks): that is what is missing, not entry data.
      if (this.entries > 0 && this.seen > this.lastEnd) return END_BLOCKS_MISSING;
      return `tar: truncated inside entry ${this.entries}`;
    }
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
    if (this.seen - this.lastEnd < 1024) throw new Error(END_BLOCKS_MISSING);
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
    const inMemory = this.held !== Infinity;
    // The central directory is read in small pieces (46 bytes, then the name, per entry): served from the
    // chunks held, or from a window of 1 MiB fetched at once, never a stream (or a request) per piece.
    let window: { start: number; data: Buffer } | undefined;
    const copyOut = (from: Buffer[], fromStart: number, target: Buffer, offset: number, position: number, length: number) => {
      let at = offset;
      for (const piece of sliceChunks(from, position - fromStart, position - fromStart + length)) {
        piece.copy(target, at);
        at += piece.length;
      }
      return at - offset;
    };
    class Ranges extends yauzl.RandomAccessReader {
      override _readStreamForRange(start: number, end: number): Readable {
        return readRange(start, end - 1);
      }
      override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null) => void): void {
        const done = (err: Error | null) => {
          setImmediate(() => callback(err));
        };
        if (inMemory) {
          const copied = copyOut(chunks, 0, buffer, offset, position, length);
          return done(copied === length ? null : new Error('unexpected EOF'));
        }
        const inWindow = () => window && position >= window.start && position + length <= window.start + window.data.length;
        if (length > 64 * 1024 || position + length > total) return super.read(buffer, offset, length, position, callback);
        const serve = () => {
          copyOut([window!.data], window!.start, buffer, offset, position, length);
          done(null);
        };
        if (inWindow()) return serve();
        const end = Math.min(total, position + 1024 * 1024);
        const parts: Buffer[] = [];
        const stream = readRange(position, end - 1);
        stream.on('data', (c: Buffer) => parts.push(c));
        stream.on('error', (err) => done(err));
        stream.on('end', () => {
          window = { start: position, data: Buffer.concat(parts) };
          if (!inWindow()) return done(new Error('unexpected EOF'));
          serve();
        });
      }
    }
    // Not closed after the listing: the entries are read in a second pass.
    const zip = await yauzl.fromRandomAccessReaderPromise(new Ranges(), total, { lazyEntries: true, autoClose: false });
    const bounds = boundsOf(this.options);
    const signal = this.options.signal;
    if (zip.entryCount > bounds.maxZipEntries) {
      zip.close();
      throw new Error(`lists ${zip.entryCount} entries, more than ${bounds.maxZipEntries}: refused; raise the bound with ${BOUND_SETTINGS.maxZipEntries}`);
    }
    // First pass, the central directory alone: every entry's stored bytes must lie apart (20,000 entries
    // pointing at one 8 MiB entry inflate 160 GB from a 1 MB file), and the declared sizes within the bound.
    const spans: Array<{ start: number; end: number; name: string }> = [];
    let entries = 0;
    let declared = 0;
    const listed: Array<import('yauzl').Entry> = [];
    try {
      for await (const entry of zip.eachEntry()) {
        entries++;
        if (entries % 256 === 0) {
          stopIfAborted(signal);
          await yieldNow();
        }
        declared += entry.uncompressedSize;
        // The local header (30 bytes, name, extra field) and the compressed data.
        spans.push({ start: entry.relativeOffsetOfLocalHeader, end: entry.relativeOffsetOfLocalHeader + 30 + entry.fileNameLength + entry.compressedSize, name: entry.fileName });
        listed.push(entry);
      }
      spans.sort((a, b) => a.start - b.start);
      for (let i = 1; i < spans.length; i++) {
        if (spans[i]!.start < spans[i - 1]!.end) {
          throw new Error(
            `entries ${JSON.stringify(spans[i - 1]!.name)} and ${JSON.stringify(spans[i]!.name)} overlap (share stored bytes): refused as a decompression bomb`,
          );
        }
      }
      if (declared > bounds.maxInflatedBytes) {
        throw new Error(`its entries inflate to more than ${bounds.maxInflatedBytes} bytes: refused; raise the bound with ${BOUND_SETTINGS.maxInflatedBytes}`);
      }
      // Second pass: inflate every entry and check its CRC-32, counting what is inflated.
      let inflated = 0;
      for (const entry of listed) {
        stopIfAborted(signal);
        if (entry.fileName.endsWith('/')) continue;
        const stream = await zip.openReadStreamPromise(entry);
        let crc = 0;
        try {
          for await (const chunk of stream as AsyncIterable<Buffer>) {
            crc = crc32(chunk, crc);
            inflated += chunk.length;
            stopIfAborted(signal);
            if (inflated > bounds.maxInflatedBytes) {
              throw new Error(`its entries inflate to more than ${bounds.maxInflatedBytes} bytes: refused; raise the bound with ${BOUND_SETTINGS.maxInflatedBytes}`);
            }
          }
        } finally {
          stream.destroy();
        }
        if (crc >>> 0 !== entry.crc32 >>> 0) throw new Error(`CRC-32 mismatch in ${JSON.stringify(entry.fileName)}: the data is damaged`);
        await yieldNow();
      }
    } finally {
      zip.close();
    }
    return { format: 'zip', verdict: 'verified', entries, content_bytes: declared };
  }
}

/** Lists read in full up to this size; a longer "list" is refused as one. */
export const SHA256_LIST_LIMIT = 4 * 1024 * 1024;

/**
 * A sha256sum list (`sha256sum` output: "<hash>  <name>" or "<hash> *<name>"),
 * every line parsed; `sums` maps each name to its hash, for the pipeline to
 * check the backup's other files against.
 */
class Sha256ListCheck extends GuardedCheck {
  format = 'sha256sums';
  private chunks: Buffer[] = [];
  private bytes = 0;
  protected explain(err: unknown): string {
    return `sha256sums: ${message(err)}`;
  }
  protected async take(chunk: Buffer): Promise<void> {
    this.bytes += chunk.length;
    if (this.bytes > SHA256_LIST_LIMIT) throw new Error(`longer than ${SHA256_LIST_LIMIT / 1048576} MiB: not read as a list`);
    this.chunks.push(chunk);
  }
  protected async finish(): Promise<ContentFinding> {
    const lines = Buffer.concat(this.chunks).toString('utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    const sums = new Map<string, string>();
    lines.forEach((raw, i) => {
      const line = raw.replace(/\r$/, '');
      const m = SHA256_LINE.exec(line);
      if (!m) throw new Error(`line ${i + 1} is not "<sha256>  <file name>": the list is damaged`);
      sums.set(m[2]!, m[1]!.toLowerCase());
    });
    return { format: 'sha256sums', verdict: 'verified', entries: sums.size, content_bytes: this.bytes, sums };
  }
}
