// A backup file's fingerprint (issue 33 §1): what its content looks like, kept
// in the catalog so that `anomalies`, `ls`, `find` and `diff` need no second
// download. A FileSink of the read pipeline (src/pipeline/types.ts): it sees
// the same bytes as verify's checks while they arrive, and never fails the
// read: a file it cannot take apart gets a note instead.
//
// - tar (gzipped or not): every entry into the listing (path, type, size,
//   mode, owner, mtime, CRC-32 of the content), counts per extension, the
//   entropy of the first 16 kB of each member that should compress, names
//   that are known ransom notes, onion addresses in text members;
// - SQL dumps (pg_dump plain, mysqldump): rows per table, from the same
//   statement reader restore-test counts with;
// - anything else: its size only.
import { once } from 'node:events';
import { PassThrough, Writable, pipeline } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip, crc32 } from 'node:zlib';
import type { Content, ContentSink } from '../pipeline/types.js';
import type { ArchiveStats, FileFingerprint } from '../state/catalog.js';
import { ListingWriter, type EntryType } from './listing.js';


/** Bits a byte from which a sample counts as random (encrypted or compressed): text is about 4-5, random 7.9+. */
export const HIGH_ENTROPY = 7.5;
/** The bytes of a member measured for entropy; a member shorter than SAMPLE_MIN is not measured. */
export const SAMPLE_BYTES = 16 * 1024;
export const SAMPLE_MIN = 1024;
const TEXT_SCAN_BYTES = 64 * 1024;
const LIST_MAX = 20;

/** Extensions whose content is compressed already: a high entropy there is normal. */
const COMPRESSED = new Set(
  'gz tgz bz2 xz zst lz4 7z rar zip jar war apk ipa docx xlsx pptx odt ods odp epub pdf jpg jpeg png gif webp heic avif mp3 mp4 m4a m4v mkv mov avi webm ogg flac woff woff2 br pgdump dump enc gpg age'.split(' '),
);
/** Extensions read as text for onion addresses (and files without one). */
const TEXT = new Set('txt md html htm hta url csv json xml yml yaml log ini conf cfg sql js ts css svg rtf'.split(' '));

/** Known ransom-note names: a note-like name (readme, how-to, instructions) with a ransom word, or one of the exact names. */
const RANSOM_WORDS = /(decrypt|restore|recover|ransom|unlock|your[ _-]?files|encrypted)/i;
const NOTE_EXT = /\.(txt|html?|hta|url|rtf)$/i;
const RANSOM_EXACT = new Set(['_readme.txt', '!!!read_me!!!.txt', '#readme.txt', 'readme.warning', 'read_it.txt']);

export function isRansomNoteName(p: string): boolean {
  const base = (p.split('/').pop() ?? p).toLowerCase();
  if (RANSOM_EXACT.has(base)) return true;
  return NOTE_EXT.test(base) && RANSOM_WORDS.test(base);
}

const ONION = /\b(?:[a-z2-7]{56}|[a-z2-7]{16})\.onion\b/gi;

export function extensionOf(p: string): string {
  const base = p.split('/').pop() ?? p;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

/** Shannon entropy of the bytes, in bits a byte (0..8). */
export function entropy(bytes: Uint8Array): number {
  if (!bytes.length) return 0;
  const counts = new Uint32Array(256);
  for (let i = 0; i < bytes.length; i++) counts[bytes[i]!]!++;
  let h = 0;
  for (let i = 0; i < 256; i++) {
    const c = counts[i]!;
    if (c) {
      const p = c / bytes.length;
      h -= p * Math.log2(p);
    }
  }
  return h;
}

function emptyArchive(): ArchiveStats {
  return { entries: 0, files: 0, dirs: 0, links: 0, bytes: 0, by_ext: {}, sampled: 0, high_entropy: 0, high_entropy_paths: [], ransom_notes: [], onions: [] };
}

const TYPE_OF: Record<string, EntryType> = { file: 'f', 'contiguous-file': 'f', directory: 'd', symlink: 'l', link: 'h' };

/** Strips "./" and trailing slashes: the path as `ls` shows it. */
export function cleanPath(p: string): string {
  let s = p.replace(/\\/g, '/');
  while (s.startsWith('./')) s = s.slice(2);
  return s.replace(/\/+$/, '') || '.';
}

/**
 * The fingerprint sink of one file. `listingFile` is where a tar's listing
 * goes (written sorted; see listing.ts).
 */
export class FingerprintSink implements ContentSink<FileFingerprint> {
  private input!: PassThrough;
  private done!: Promise<void>;
  private raw = 0;
  private gzip = false;
  private decided = false;
  private consumer!: DecodedConsumer;
  /** Set by the content stage (open): the bytes that follow are decoded already, of this kind. */
  private content: Content | undefined;

  constructor(
    private readonly name: string,
    private readonly listingFile: string,
  ) {
    this.reset();
  }

  private reset(): void {
    this.raw = 0;
    this.decided = false;
    this.consumer = new DecodedConsumer(this.listingFile);
    this.input = new PassThrough({ highWaterMark: 1024 * 1024 });
    this.input.on('error', () => {});
  }

  /**
   * The content stage names the kind and sends decoded bytes (a ContentSink of
   * src/pipeline): nothing is inflated or sniffed here then. Without it, the
   * sink takes raw bytes and does both itself.
   */
  async open(content: Content): Promise<void> {
    this.content = content;
    this.consumer.preset(content.kind);
  }

  private start(first: Buffer): void {
    this.decided = true;
    this.gzip = this.content ? this.content.gzip : first.length >= 2 && first[0] === 0x1f && first[1] === 0x8b;
    const consumer = this.consumer;
    const sinkStream = consumer.writable();
    const inflate = this.gzip && !this.content;
    const stages = inflate ? [this.input, createGunzip({ chunkSize: 256 * 1024 }), sinkStream] : [this.input, sinkStream];
    this.done = new Promise<void>((resolve) => {
      pipeline(stages as unknown as [PassThrough, Writable], (err) => {
        // The content could not be read whole (a gzip or tar error): the fingerprint says so, the read goes on.
        if (err && !consumer.note) consumer.note = `content: ${err.message}`;
        resolve();
      });
    });
  }

  async write(chunk: Buffer): Promise<void> {
    if (!this.decided) this.start(chunk);
    this.raw += chunk.length;
    if (this.consumer.note && this.input.destroyed) return;
    if (!this.input.write(chunk)) await Promise.race([once(this.input, 'drain'), this.done]);
  }

  async restart(): Promise<void> {
    await this.abort();
    const content = this.content;
    this.reset();
    if (content) await this.open(content);
  }

  async end(): Promise<FileFingerprint> {
    if (!this.decided) this.start(Buffer.alloc(0));
    this.input.end();
    await this.done;
    const result = await this.consumer.finish();
    return { name: this.name, bytes: this.raw, gzip: this.gzip, ...result };
  }

  async abort(): Promise<void> {
    if (this.decided) {
      this.input.destroy();
      await this.done.catch(() => {});
    }
    await this.consumer.discard();
  }
}

/** What the decoded bytes are, and their statistics. */
class DecodedConsumer {
  note: string | undefined;
  private head: Buffer[] = [];
  private headBytes = 0;
  private kind: FileFingerprint['kind'] | undefined;
  private tar?: TarWalker;
  private sql?: SqlCounter;

  constructor(private readonly listingFile: string) {}

  /** The kind as the content stage's one sniffer named it (src/pipeline/kinds.ts ids). */
  preset(kind: string): void {
    this.presetKind = kind;
  }
  private presetKind: string | undefined;

  writable(): Writable {
    return new Writable({
      highWaterMark: 256 * 1024,
      write: (chunk: Buffer, _enc, cb) => {
        this.take(chunk).then(() => cb(), (err: Error) => cb(err));
      },
      final: (cb) => {
        this.close().then(() => cb(), (err: Error) => cb(err));
      },
    });
  }

  private async take(chunk: Buffer): Promise<void> {
    if (this.kind === undefined) {
      this.head.push(chunk);
      this.headBytes += chunk.length;
      if (this.headBytes < 4096) return;
      await this.decide();
      return;
    }
    await this.feed(chunk);
  }

  private async decide(): Promise<void> {
    const head = Buffer.concat(this.head);
    this.head = [];
    this.kind = 'other';
    if (this.presetKind !== undefined) {
      await this.choose(this.presetKind);
      if (head.length) await this.feed(head);
      return;
    }
    // Without the content stage (a caller that feeds raw bytes): a ustar header, else no content statistics.
    if (head.length >= 262 && head.subarray(257, 262).toString('latin1') === 'ustar') await this.choose('tar');
    if (head.length) await this.feed(head);
  }

  private async choose(kind: string): Promise<void> {
    if (kind === 'tar') {
      this.kind = 'tar';
      this.tar = new TarWalker(this.listingFile);
    } else if (kind === 'zip') {
      this.kind = 'zip';
      this.note = 'zip: listed by verify; not fingerprinted member by member yet';
    } else if (kind === 'pg-plain' || kind === 'mysql') {
      this.kind = 'sql';
      this.sql = new SqlCounter(kind === 'mysql' ? 'mysql' : 'postgres');
      await this.sql.init();
    }
  }

  private async feed(chunk: Buffer): Promise<void> {
    if (this.tar) await this.tar.write(chunk);
    else if (this.sql) this.sql.write(chunk);
  }

  private async close(): Promise<void> {
    if (this.kind === undefined) await this.decide();
    if (this.tar) await this.tar.end();
    if (this.sql) this.sql.end();
  }

  async finish(): Promise<Pick<FileFingerprint, 'kind' | 'archive' | 'sql' | 'listing' | 'note'>> {
    const kind = this.kind ?? 'other';
    const out: Pick<FileFingerprint, 'kind' | 'archive' | 'sql' | 'listing' | 'note'> = { kind };
    if (this.tar) {
      if (this.tar.failed || this.note) {
        out.note = this.note ?? this.tar.failed;
        await this.tar.discard();
      } else {
        await this.tar.listing.finish();
        out.listing = this.listingFile.split('/').pop();
      }
      out.archive = this.tar.stats;
    }
    if (this.sql) out.sql = { dialect: this.sql.dialect, tables: this.sql.tables };
    if (this.note && !out.note) out.note = this.note;
    return out;
  }

  async discard(): Promise<void> {
    await this.tar?.discard();
  }
}

/** The header fields of a tar-stream entry that a listing keeps. */
interface TarHeader {
  name: string;
  type?: string | null;
  mode?: number;
  uid?: number;
  gid?: number;
  mtime?: Date;
  linkname?: string | null;
}

/** Walks a tar stream with tar-stream's extract, one entry at a time. */
class TarWalker {
  readonly stats = emptyArchive();
  readonly listing: ListingWriter;
  failed: string | undefined;
  private extract: Writable | undefined;
  private ready: Promise<void>;
  private finished: Promise<void> | undefined;

  constructor(listingFile: string) {
    this.listing = new ListingWriter(listingFile);
    this.ready = this.open();
  }

  private async open(): Promise<void> {
    const { extract: makeExtract } = await import('tar-stream');
    const extract = makeExtract() as unknown as Writable & NodeJS.EventEmitter;
    this.finished = new Promise<void>((resolve) => {
      extract.on('finish', () => resolve());
      extract.on('close', () => resolve());
      extract.on('error', (err: Error) => {
        this.failed = `tar: ${err.message}`;
        resolve();
      });
    });
    extract.on('entry', (header: TarHeader, stream: AsyncIterable<Buffer>, next: (err?: Error) => void) => {
      this.entry(header, stream).then(
        () => next(),
        (err: Error) => next(err),
      );
    });
    this.extract = extract;
  }

  private async entry(header: TarHeader, stream: AsyncIterable<Buffer>): Promise<void> {
    const p = cleanPath(header.name);
    const type: EntryType = TYPE_OF[header.type ?? 'file'] ?? 'o';
    const s = this.stats;
    s.entries++;
    let crc = 0;
    let seen = 0;
    const measure = type === 'f' && !COMPRESSED.has(extensionOf(p));
    const textual = type === 'f' && (TEXT.has(extensionOf(p)) || extensionOf(p) === '');
    const sample: Buffer[] = [];
    let sampled = 0;
    const text: Buffer[] = [];
    let texted = 0;
    for await (const piece of stream) {
      crc = crc32(piece, crc);
      seen += piece.length;
      if (measure && sampled < SAMPLE_BYTES) {
        const part = piece.subarray(0, SAMPLE_BYTES - sampled);
        sample.push(part);
        sampled += part.length;
      }
      if (textual && texted < TEXT_SCAN_BYTES) {
        const part = piece.subarray(0, TEXT_SCAN_BYTES - texted);
        text.push(part);
        texted += part.length;
      }
    }
    if (type === 'f') {
      s.files++;
      s.bytes += seen;
      const ext = extensionOf(p);
      s.by_ext[ext] = (s.by_ext[ext] ?? 0) + 1;
      if (measure && sampled >= SAMPLE_MIN) {
        s.sampled++;
        if (entropy(Buffer.concat(sample)) >= HIGH_ENTROPY) {
          s.high_entropy++;
          if (s.high_entropy_paths.length < LIST_MAX) s.high_entropy_paths.push(p);
        }
      }
      if (isRansomNoteName(p) && s.ransom_notes.length < LIST_MAX) s.ransom_notes.push(p);
      if (texted) {
        for (const m of Buffer.concat(text).toString('latin1').matchAll(ONION)) {
          if (s.onions.length >= LIST_MAX) break;
          if (!s.onions.some((o) => o.path === p && o.address === m[0].toLowerCase())) s.onions.push({ path: p, address: m[0].toLowerCase() });
        }
      }
    } else if (type === 'd') s.dirs++;
    else if (type === 'l' || type === 'h') s.links++;
    await this.listing.add({
      path: p,
      type,
      size: type === 'f' ? seen : 0,
      mode: header.mode ?? 0,
      uid: header.uid ?? 0,
      gid: header.gid ?? 0,
      mtime: header.mtime ? Math.floor(header.mtime.getTime() / 1000) : 0,
      crc: type === 'f' ? (crc >>> 0).toString(16).padStart(8, '0') : '',
      ...(header.linkname ? { link: header.linkname } : {}),
    });
  }

  async write(chunk: Buffer): Promise<void> {
    await this.ready;
    if (this.failed || !this.extract) return;
    if (!this.extract.write(chunk)) await Promise.race([once(this.extract, 'drain'), this.finished]);
  }

  async end(): Promise<void> {
    await this.ready;
    if (!this.extract) return;
    this.extract.end();
    await this.finished;
  }

  async discard(): Promise<void> {
    this.extract?.destroy();
    await this.listing.discard();
  }
}

/** Rows per table of a SQL dump, counted by restore-test's statement reader. */
class SqlCounter {
  readonly tables: Record<string, number> = {};
  private reader!: import('../pipeline/sql-reader.js').SqlReader;
  private countInsert!: typeof import('../pipeline/sql-reader.js').countInsertRows;
  private normalize!: typeof import('../pipeline/sql-reader.js').normalizeName;
  private copyTable: string | null = null;
  private readonly decoder = new StringDecoder('utf8');

  constructor(readonly dialect: 'postgres' | 'mysql') {}

  async init(): Promise<void> {
    const r = await import('../pipeline/sql-reader.js');
    this.reader = new r.SqlReader(this.dialect);
    this.countInsert = r.countInsertRows;
    this.normalize = r.normalizeName;
  }

  write(chunk: Buffer): void {
    this.take(this.reader.push(this.decoder.write(chunk)));
  }

  end(): void {
    this.take(this.reader.push(this.decoder.end()));
    this.take(this.reader.end());
  }

  private take(events: import('../pipeline/sql-reader.js').SqlEvent[]): void {
    for (const e of events) {
      if (e.type === 'statement') {
        if (e.copy) {
          const m = /^COPY\s+((?:"(?:[^"]|"")+"|[\w$]+)(?:\.(?:"(?:[^"]|"")+"|[\w$]+))?)/i.exec(e.head);
          this.copyTable = m ? this.normalize(m[1]!, this.dialect) : null;
          if (this.copyTable) this.tables[this.copyTable] ??= 0;
          continue;
        }
        const create = /^CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?((?:"(?:[^"]|"")+"|`(?:[^`]|``)+`|[\w$]+)(?:\.(?:"(?:[^"]|"")+"|`(?:[^`]|``)+`|[\w$]+))?)/i.exec(e.head);
        if (create) {
          this.tables[this.normalize(create[1]!, this.dialect)] ??= 0;
          continue;
        }
        const ins = this.countInsert(e.head, this.dialect);
        if (ins) this.tables[ins.table] = (this.tables[ins.table] ?? 0) + ins.rows;
      } else if (e.type === 'copy-data' && this.copyTable) {
        this.tables[this.copyTable] = (this.tables[this.copyTable] ?? 0) + e.rows;
      } else if (e.type === 'copy-end') {
        this.copyTable = null;
      }
    }
  }
}
