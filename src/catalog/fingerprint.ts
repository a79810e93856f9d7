// A backup file's fingerprint (issue 33 §1): what its content looks like, kept
// in the catalog so that `anomalies`, `ls`, `find` and `diff` need no second
// download. A ContentSink of the read pipeline (src/pipeline/types.ts): the
// content stage inflates and sniffs once, and the kind's check walks a tar or
// zip ONCE (src/pipeline/content/) and hands this sink every member (its
// header and bytes, ContentSink.entries): nothing here parses an archive. It
// never fails the read: a file it cannot take apart gets a note instead.
//
// - tar (gzipped or not) and zip, member by member: every entry into the
//   listing (path, type, size, mode, owner, mtime, CRC-32 of the content),
//   counts per extension, the entropy of the first 16 kB of each member that
//   should compress, names that are known ransom notes, onion addresses in
//   text members;
// - SQL dumps (pg_dump plain, mysqldump): rows per table, from the
//   statements the content stage reads ONCE (ContentSink.statements), the
//   same events restore-test's SQL engine restores and counts with;
// - anything else: its size only.
import { KINDS, type SqlDialect } from '../pipeline/kinds.js';
import type { SqlEvent } from '../pipeline/sql-events.js';
import { countInsertRows, normalizeName } from '../pipeline/sql-rows.js';
import type { ArchiveEntry, Content, ContentSink, EntryContent, EntryWatcher, StatementWatcher } from '../pipeline/types.js';
import type { ArchiveStats, FileFingerprint } from '../state/catalog.js';
import { ListingWriter, cleanPath, type EntryType } from './listing.js';


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

const TYPE_OF: Record<ArchiveEntry['type'], EntryType> = { file: 'f', directory: 'd', symlink: 'l', link: 'h', other: 'o' };

/**
 * The fingerprint sink of one file. `listingFile` is where an archive's
 * listing goes (written sorted; see listing.ts).
 */
export class FingerprintSink implements ContentSink<FileFingerprint> {
  private kind: FileFingerprint['kind'] = 'other';
  private gzip = false;
  private bytes = 0;
  private sql?: SqlCounter;
  private members?: MemberStats;
  /** The walk of the archive ended (close): the listing is whole, or `failure` says why not. */
  private walked?: { done: Promise<void>; resolve: () => void; failure?: string };

  constructor(
    private readonly name: string,
    private readonly listingFile: string,
  ) {}

  /** The members of a tar or zip, from the check that walks it. */
  readonly entries: EntryWatcher = {
    begin: (format) => {
      this.kind = format;
      this.members = new MemberStats(this.listingFile);
      let resolve!: () => void;
      const done = new Promise<void>((r) => (resolve = r));
      this.walked = { done, resolve };
    },
    entry: (entry) => this.members?.entry(entry),
    close: (failure) => {
      if (!this.walked) return;
      this.walked.failure = failure;
      this.walked.resolve();
    },
  };

  /** The statements of a SQL dump, as the content stage read them (once, for restore-test's engine too). */
  readonly statements: StatementWatcher = {
    events: (batch) => this.sql?.take(batch),
  };

  /** The content stage names the kind; the decoded bytes follow (nothing is inflated, sniffed or parsed here). */
  async open(content: Content): Promise<void> {
    this.gzip = content.gzip;
    const dialect = KINDS[content.kind].statements;
    if (dialect) {
      this.kind = 'sql';
      this.sql = new SqlCounter(dialect);
    }
  }

  async write(chunk: Buffer): Promise<void> {
    this.bytes += chunk.length;
  }

  async restart(): Promise<void> {
    await this.abort();
    this.kind = 'other';
    this.bytes = 0;
    this.sql = undefined;
    this.members = undefined;
    this.walked = undefined;
  }

  async end(): Promise<FileFingerprint> {
    const out: FileFingerprint = { name: this.name, bytes: this.bytes, gzip: this.gzip, kind: this.kind };
    if (this.sql) {
      out.sql = { dialect: this.sql.dialect, tables: this.sql.tables };
      if (this.sql.stopped) out.note = `content: ${this.sql.stopped}`;
    }
    if (this.members && this.walked) {
      // The check ends the walk when it has read the last member (a zip: after the last byte).
      await this.walked.done;
      const failure = this.walked.failure ?? this.members.failed;
      out.archive = this.members.stats;
      if (failure) {
        out.note = `content: ${failure}`;
        await this.members.listing.discard();
      } else {
        await this.members.listing.finish();
        out.listing = this.listingFile.split('/').pop();
      }
    }
    return out;
  }

  async abort(): Promise<void> {
    this.walked?.resolve();
    await this.members?.listing.discard();
  }
}

/** The statistics and the listing of an archive, member by member as the check hands them over. */
class MemberStats {
  readonly stats = emptyArchive();
  readonly listing: ListingWriter;
  failed: string | undefined;

  constructor(listingFile: string) {
    this.listing = new ListingWriter(listingFile);
  }

  entry(header: ArchiveEntry): EntryContent {
    const p = cleanPath(header.path);
    const type = TYPE_OF[header.type];
    const ext = extensionOf(p);
    const measure = type === 'f' && !COMPRESSED.has(ext);
    const textual = type === 'f' && (TEXT.has(ext) || ext === '');
    let seen = 0;
    const sample: Buffer[] = [];
    let sampled = 0;
    const text: Buffer[] = [];
    let texted = 0;
    return {
      data: (piece) => {
        seen += piece.length;
        // Copies: the pieces are the check's, and a sample outlives them.
        if (measure && sampled < SAMPLE_BYTES) {
          const part = Buffer.from(piece.subarray(0, SAMPLE_BYTES - sampled));
          sample.push(part);
          sampled += part.length;
        }
        if (textual && texted < TEXT_SCAN_BYTES) {
          const part = Buffer.from(piece.subarray(0, TEXT_SCAN_BYTES - texted));
          text.push(part);
          texted += part.length;
        }
      },
      end: async (crc) => {
        const s = this.stats;
        s.entries++;
        if (type === 'f') {
          s.files++;
          s.bytes += seen;
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
        try {
          await this.listing.add({
            path: p,
            type,
            size: type === 'f' ? seen : 0,
            mode: header.mode,
            uid: header.uid,
            gid: header.gid,
            mtime: header.mtime,
            crc: type === 'f' ? (crc >>> 0).toString(16).padStart(8, '0') : '',
            ...(header.link ? { link: header.link } : {}),
          });
        } catch (err) {
          this.failed ??= `listing: ${(err as Error).message}`;
        }
      },
    };
  }
}

/** Rows per table of a SQL dump, from the statements the content stage read (the reader restore-test restores with). */
class SqlCounter {
  readonly tables: Record<string, number> = {};
  private copyTable: string | null = null;
  /** Why the reading stopped before the end (the reader's bound): the counts are partial. */
  stopped: string | undefined;

  constructor(readonly dialect: SqlDialect) {}

  take(events: readonly SqlEvent[]): void {
    for (const e of events) {
      if (e.type === 'statement') {
        if (e.copy) {
          const m = /^COPY\s+((?:"(?:[^"]|"")+"|[\w$]+)(?:\.(?:"(?:[^"]|"")+"|[\w$]+))?)/i.exec(e.head);
          this.copyTable = m ? normalizeName(m[1]!, this.dialect) : null;
          if (this.copyTable) this.tables[this.copyTable] ??= 0;
          continue;
        }
        const create = /^CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?((?:"(?:[^"]|"")+"|`(?:[^`]|``)+`|[\w$]+)(?:\.(?:"(?:[^"]|"")+"|`(?:[^`]|``)+`|[\w$]+))?)/i.exec(e.head);
        if (create) {
          this.tables[normalizeName(create[1]!, this.dialect)] ??= 0;
          continue;
        }
        const ins = countInsertRows(e.head, this.dialect);
        if (ins) this.tables[ins.table] = (this.tables[ins.table] ?? 0) + ins.rows;
      } else if ((e.type === 'copy-data' || e.type === 'copy-bytes') && this.copyTable) {
        this.tables[this.copyTable] = (this.tables[this.copyTable] ?? 0) + e.rows;
      } else if (e.type === 'copy-end') {
        this.copyTable = null;
      } else if (e.type === 'error' && e.bound) {
        this.stopped ??= e.message;
      }
    }
  }
}
