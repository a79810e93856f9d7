// THE answer to "what is this file" (issue 31 §1): one registry of content
// kinds and one sniffer. The content stage (src/pipeline/content/stage.ts) calls
// the sniffer once per file and hands the kind to verify's check (src/pipeline/
// content/) and to every sink (restore-test's dispatch, the catalog); the
// decryption variants (src/pipeline/decrypt.ts) ask it too; nothing else decides a kind.
//
// The sniffer sees the first decoded bytes (a gzip is inflated first, once,
// by the content stage), never the file name. Each kind says:
//   format   the word verify prints ("tar", "mysqldump", ...; "<format>.gz" inside a gzip)
//   check    how verify checks it (the check of that name in src/pipeline/content/stage.ts CHECKS)
//   counts   what verify's `entries` / `content_bytes` count
// Which restore engine takes a kind is the engine's to say (src/restore/registry.ts:
// a RestoreEngine lists its kinds); a kind no engine lists is not restorable.
// Adding a kind: an entry here and its rule in sniffContent, a case in
// test/unit/kinds-edges.test.ts and test/unit/content-kinds.test.ts, and (if
// verify reads it in a new way) a check of its own in src/pipeline/content/.

export const KIND_IDS = [
  'mysql',
  'pg-plain',
  'pg-custom',
  'sqlite',
  'sqlite-dump',
  'mongo-archive',
  'tar',
  'zip',
  'sha256sums',
  'openssl-enc',
  'age',
  'openpgp',
  'gzip',
  'unknown',
] as const;

/** What the (decoded) bytes are, sniffed from the content, never the name. */
export type ContentKind = (typeof KIND_IDS)[number];

/** The checks verify has (src/pipeline/content/stage.ts CHECKS, one file each beside it). */
export type CheckName = 'tar' | 'zip' | 'sql-dump' | 'pg-custom' | 'mongo-archive' | 'sha256sums' | 'encrypted' | 'opaque';

/** The SQL dialects the reader counts and the engines restore. */
export type SqlDialect = 'postgres' | 'mysql';

export interface KindSpec {
  /** verify's `format` for it (inside a gzip: `<format>.gz`). */
  format: string;
  /** "a MySQL dump": how a message names it. */
  words: string;
  check: CheckName;
  /** What verify counts in `entries` and `content_bytes`. */
  counts: string;
  /** Encrypted bytes: size and hash only, never restored here. */
  encrypted?: boolean;
  /** The end marker a complete dump carries (sql-dump), and the banner that promises it. */
  endMarker?: { banner: RegExp; marker: string };
  /**
   * SQL text in this dialect: the content stage reads its statements ONCE (src/pipeline/sql-bytes.ts)
   * for every sink that asks (ContentSink.statements): the catalog's row counts and the SQL engine's restore.
   */
  statements?: SqlDialect;
}

export const KINDS: Readonly<Record<ContentKind, KindSpec>> = {
  mysql: {
    format: 'mysqldump',
    words: 'a MySQL dump',
    check: 'sql-dump',
    counts: 'content_bytes: the SQL bytes; the end marker "-- Dump completed" when the dump opens with its banner',
    statements: 'mysql',
    endMarker: { banner: /^(\/\*M!999999\\- enable the sandbox mode \*\/ ?\r?\n)?-- (MySQL|MariaDB) dump /, marker: '-- Dump completed' },
  },
  'pg-plain': {
    format: 'pg_dump',
    words: 'a PostgreSQL plain dump',
    check: 'sql-dump',
    counts: 'content_bytes: the SQL bytes; the end marker "-- PostgreSQL database dump complete" when the dump opens with its banner',
    statements: 'postgres',
    endMarker: { banner: /^(--\s*\n)?-- PostgreSQL database dump\b/, marker: '-- PostgreSQL database dump complete' },
  },
  'pg-custom': {
    format: 'pg_dump-custom',
    words: 'a PostgreSQL custom-format dump',
    check: 'pg-custom',
    counts: 'entries: the objects of its table of contents; every data block the table of contents announces must follow, whole',
  },
  // A SQLite database file ("SQLite format 3\0"): verify has no check of its own (restore-test's PRAGMA integrity_check is one).
  sqlite: { format: 'sqlite', words: 'a SQLite database', check: 'opaque', counts: 'size and hash only' },
  // `sqlite3 db .dump`: SQL text in a transaction, its last line COMMIT.
  'sqlite-dump': {
    format: 'sqlite-dump',
    words: 'a SQLite dump',
    check: 'sql-dump',
    counts: 'content_bytes: the SQL bytes; the end marker "COMMIT;" when the dump opens as sqlite3 .dump does',
    endMarker: { banner: /^PRAGMA foreign_keys=OFF;\r?\nBEGIN TRANSACTION;/, marker: 'COMMIT;' },
  },
  'mongo-archive': {
    format: 'mongodump',
    words: 'a mongodump archive',
    check: 'mongo-archive',
    counts: 'entries: the documents, every one parsed; each collection\'s CRC-64 against the archive\'s',
  },
  tar: {
    format: 'tar',
    words: 'a tar archive',
    check: 'tar',
    counts: 'entries: the tar entries (every header checksum); content_bytes: the bytes of its files; the end blocks',
  },
  zip: {
    format: 'zip',
    words: 'a zip archive',
    check: 'zip',
    counts: 'entries: the central directory; content_bytes: their declared sizes; every CRC-32',
  },
  sha256sums: {
    format: 'sha256sums',
    words: 'a sha256 list',
    check: 'sha256sums',
    counts: 'entries: its lines (every one parsed); the backup\'s other files are checked against it',
  },
  'openssl-enc': { format: 'openssl-enc', words: 'OpenSSL enc encrypted data', check: 'encrypted', counts: 'size and hash only', encrypted: true },
  age: { format: 'age', words: 'age encrypted data', check: 'encrypted', counts: 'size and hash only', encrypted: true },
  openpgp: { format: 'openpgp', words: 'OpenPGP encrypted data', check: 'encrypted', counts: 'size and hash only', encrypted: true },
  gzip: { format: 'gzip', words: 'a gzip inside a gzip', check: 'opaque', counts: 'size and hash only' },
  unknown: { format: 'data', words: 'data of a kind backupctl does not read', check: 'opaque', counts: 'size and hash only' },
};

/** Decoded bytes the sniffer wants before it decides (fewer when the file is shorter). */
export const SNIFF_BYTES = 4096;

/** The gzip magic (1f 8b). */
export function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** A mongodump --archive opens with this uint32 (little-endian); src/pipeline/mongo-archive.ts reads the rest. */
export const MONGO_MAGIC = 0x8199e26d;

/** A tar header: "ustar" magic, or an old (v7) header whose checksum adds up. */
export function isTarHeader(head: Buffer): boolean {
  if (head.length < 512) return false;
  if (head.toString('latin1', 257, 262) === 'ustar') return true;
  const stored = parseInt(head.toString('latin1', 148, 156).replace(/\0.*$/, '').trim(), 8);
  if (!Number.isFinite(stored)) return false;
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : head[i]!;
  return sum === stored && sum !== 256;
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

/** The header of a known encryption format, from the first bytes: its kind and how a message names it. */
export function encryptionHeader(head: Buffer): { kind: 'openssl-enc' | 'age' | 'openpgp'; what: string } | undefined {
  const text = head.toString('latin1', 0, 64);
  if (text.startsWith('Salted__')) return { kind: 'openssl-enc', what: 'OpenSSL enc, "Salted__"' };
  if (text.startsWith('age-encryption.org/v1\n') || text.startsWith('-----BEGIN AGE ENCRYPTED FILE-----')) return { kind: 'age', what: 'age' };
  if (text.startsWith('-----BEGIN PGP MESSAGE-----')) return { kind: 'openpgp', what: 'OpenPGP, armored' };
  if (isOpenPgp(head)) return { kind: 'openpgp', what: 'OpenPGP' };
  return undefined;
}

/** "<64 hex> <space or *><name>": a line of a sha256sum list. */
export const SHA256_LINE = /^([0-9a-fA-F]{64}) [ *](.+)$/;

function isSha256List(head: Buffer): boolean {
  const first = head.toString('latin1', 0, Math.min(head.length, 4096)).split('\n', 1)[0]!.replace(/\r$/, '');
  return SHA256_LINE.test(first);
}

/** mysqldump / pg_dump plain SQL, from its banner or the statements only that tool writes. */
function sqlDumpKind(head: Buffer): 'mysql' | 'pg-plain' | undefined {
  const text = head.subarray(0, 65536).toString('utf8');
  if (/\u0000/.test(text.slice(0, 4096))) return undefined;
  if (KINDS.mysql.endMarker!.banner.test(text)) return 'mysql';
  if (KINDS['pg-plain'].endMarker!.banner.test(text)) return 'pg-plain';
  // Without the banner at the very start (--skip-comments, a dump cut by another tool): the statements decide.
  if (/^-- (MySQL|MariaDB) dump \d/m.test(text)) return 'mysql';
  if (/^-- PostgreSQL database (cluster )?dump/m.test(text)) return 'pg-plain';
  if (/^\\restrict [A-Za-z0-9]+\s*$/m.test(text)) return 'pg-plain';
  if (/^SELECT pg_catalog\.set_config\('search_path'/m.test(text)) return 'pg-plain';
  if (/^COPY [^\n]+ FROM stdin;$/m.test(text)) return 'pg-plain';
  if (/^\/\*!\d{5} SET /m.test(text) || /^LOCK TABLES `/m.test(text) || /^CREATE TABLE `[^`]+` \(/m.test(text)) return 'mysql';
  if (/^SET (statement_timeout|client_encoding|standard_conforming_strings) = /m.test(text)) return 'pg-plain';
  return undefined;
}

/**
 * THE sniffer: the kind of the first decoded bytes (SNIFF_BYTES of them, or
 * the whole file when shorter). `gzip` when they came out of a gzip (a sha256
 * list is a file of its own, never inside one).
 */
export function sniffContent(head: Buffer, o: { gzip?: boolean } = {}): ContentKind {
  if (isGzip(head)) return 'gzip';
  if (head.length >= 5 && head.toString('latin1', 0, 5) === 'PGDMP') return 'pg-custom';
  if (head.length >= 4 && head.readUInt32LE(0) === MONGO_MAGIC) return 'mongo-archive';
  if (head.length >= 4 && (head.readUInt32LE(0) === 0x04034b50 || head.readUInt32LE(0) === 0x06054b50)) return 'zip';
  if (isTarHeader(head)) return 'tar';
  if (head.length >= 16 && head.toString('latin1', 0, 16) === 'SQLite format 3\0') return 'sqlite';
  if (KINDS['sqlite-dump'].endMarker!.banner.test(head.toString('latin1', 0, 64))) return 'sqlite-dump';
  const encryption = encryptionHeader(head);
  if (encryption) return encryption.kind;
  const sql = sqlDumpKind(head);
  if (sql) return sql;
  if (!o.gzip && isSha256List(head)) return 'sha256sums';
  return 'unknown';
}

/** The kind a verify `format` names ("tar.gz" -> tar), for a reader of verify's output; undefined for "not-read" and the like. */
export function kindOfFormat(format: string): ContentKind | undefined {
  // A gzip holding bytes of no known kind is reported as "gzip".
  if (format === 'gzip') return 'unknown';
  const bare = format.endsWith('.gz') ? format.slice(0, -3) : format;
  return (Object.keys(KINDS) as ContentKind[]).find((k) => KINDS[k].format === bare);
}
