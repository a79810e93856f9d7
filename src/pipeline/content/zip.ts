import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { BOUND_SETTINGS } from '../bounds.js';
import type { ArchiveEntry } from '../types.js';
import { GuardedCheck, boundsOf, message, stopIfAborted, yieldNow, type ContentFinding, type InspectOptions } from './check.js';
import { feed, type Walk } from './walk.js';
import { parsing } from '../parses.js';

/**
 * A zip must be read from its end (the central directory) and then entry by
 * entry: up to this many bytes it is held in memory while it streams past;
 * larger ones are read again by HTTP ranges, entry by entry (150 MB RSS bound).
 */
export const ZIP_MEMORY_LIMIT = 48 * 1024 * 1024;

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
export class ZipCheck extends GuardedCheck {
  format = 'zip';
  private chunks: Buffer[] = [];
  private held = 0;
  private total = 0;
  private readonly limit: number;
  constructor(
    private readonly options: InspectOptions,
    private readonly walk?: Walk,
  ) {
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
    parsing('zip');
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
      // The listing passed: the sinks that take the members hear its totals first (restore-test's disk room).
      if (this.walk?.listening) await this.walk.listed({ entries, bytes: declared });
      // Second pass: inflate every entry and check its CRC-32, counting what is inflated; each entry and
      // its bytes go to the sinks that ask (the fingerprint, restore-test's extraction, restore-file),
      // member by member, waiting for the slowest: this is the zip's one parse, nobody opens it again.
      let inflated = 0;
      for (const entry of listed) {
        stopIfAborted(signal);
        const readers = this.walk?.listening ? this.walk.entry(zipEntry(entry), false) : [];
        if (entry.fileName.endsWith('/')) {
          await Promise.all(readers.map((r) => r.end(0)));
          continue;
        }
        const stream = await zip.openReadStreamPromise(entry);
        let crc = 0;
        try {
          for await (const chunk of stream as AsyncIterable<Buffer>) {
            crc = crc32(chunk, crc);
            if (readers.length) await feed(readers, chunk);
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
        await Promise.all(readers.map((r) => r.end(crc)));
        await yieldNow();
      }
    } finally {
      zip.close();
    }
    return { format: 'zip', verdict: 'verified', entries, content_bytes: declared };
  }
}

/** A zip entry as the walk's watchers see it: the Unix mode and type from the external attributes when a Unix zip states them. */
function zipEntry(e: import('yauzl').Entry): ArchiveEntry {
  const unix = (e.versionMadeBy >> 8) === 3 ? e.externalFileAttributes >>> 16 : 0;
  const fmt = unix & 0o170000;
  const dir = e.fileName.endsWith('/') || fmt === 0o040000;
  const type: ArchiveEntry['type'] = dir ? 'directory' : fmt === 0o120000 ? 'symlink' : fmt === 0 || fmt === 0o100000 ? 'file' : 'other';
  let mtime = 0;
  try {
    mtime = Math.floor(e.getLastModDate({ timezone: 'UTC' }).getTime() / 1000);
  } catch {
    /* no date */
  }
  return { path: e.fileName, type, size: type === 'file' ? e.uncompressedSize : 0, mode: unix & 0o7777, uid: 0, gid: 0, mtime: Number.isFinite(mtime) ? mtime : 0 };
}
