// Real backup files for the files server: a .tar.gz of a made-up directory
// tree, .sql.gz dumps as mysqldump and pg_dump write them, a mongodump archive,
// a website .zip, an encrypted blob and a checksum list. Everything is drawn
// from a generator seeded by the file's name, so the bytes are the same on
// every call, and every file is exactly as long as its record says: gzip files
// carry the slack in a header comment protected by the header CRC (FHCRC), a
// zip in a stored image entry. Nothing here reads the clock.
import { createCipheriv, createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { constants as zlibConstants, crc32, deflateRawSync, gzipSync } from 'node:zlib';
import { mongodumpArchive } from './mongo-archive.js';
import { realDump } from './real-dumps.js';
import { createRng, pick, randInt, type Rng } from './util.js';

export type ArchiveKind = 'tar.gz' | 'mysql' | 'postgres' | 'mongo' | 'zip' | 'checksums' | 'encrypted' | HostileKind | RestoreHostileKind;

/**
 * Archives that attack the reader, for `verify`'s bounds (src/emulator/verify-fixtures.ts):
 * zip-bomb   20,000 central-directory entries that all point at one 8 MiB entry (about 1 MB);
 * zip-zeros  2,000 entries of 1 MiB of zeros each, apart (legitimate, but 2 GiB to inflate);
 * gzip-zeros 4 GiB of zeros in about 4 MB.
 * Made from one deflated MiB of zeros, copied: nothing is compressed at length.
 */
export type HostileKind = 'zip-bomb' | 'zip-zeros' | 'gzip-zeros';

/** A damage the files server plants, for `verify` to find; `dotdot-entry` (a valid tar.gz with a `../` entry) is for restore-test, not in FILE_FAULTS. */
export type FileFault = 'truncated' | 'flipped-byte' | 'bad-tar-header' | 'no-end-marker' | 'wrong-size' | 'dotdot-entry';
export const FILE_FAULTS = ['truncated', 'flipped-byte', 'bad-tar-header', 'no-end-marker', 'wrong-size'] as const satisfies readonly FileFault[];

/** 2024-03-01T00:00:00Z: every archive's inner dates are fixed, never "now". */
const ARCHIVE_EPOCH_S = 1_709_251_200;

const WORDS = [
  'backup', 'order', 'customer', 'invoice', 'static', 'assets', 'config', 'server', 'payment', 'session',
  'cache', 'public', 'report', 'export', 'module', 'vendor', 'kernel', 'upload', 'thumbnail', 'release',
  'nginx', 'daemon', 'record', 'ledger', 'archive', 'schema', 'index', 'request', 'response', 'account',
];

export function nameSeed(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** Lines of words and numbers: compresses about 3:1, like source and config files. */
function wordLines(rng: Rng, bytes: number): string {
  const lines: string[] = [];
  let length = 0;
  while (length < bytes) {
    const words = Array.from({ length: randInt(rng, 3, 12) }, () => pick(rng, WORDS));
    const line = `${words.join(' ')} ${randInt(rng, 0, 99_999)} ${Math.floor(rng() * 0xffffffff).toString(16)}`;
    lines.push(line);
    length += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

let pool: string | undefined;

/**
 * Text of `bytes`: slices of one 256 KB pool of word lines (made once), so a
 * 300 KB file costs a few copies instead of 100k random draws. The pool is wider
 * than deflate's 32 KB window, so files still compress like text, not like repeats.
 */
function prose(rng: Rng, bytes: number): string {
  pool ??= wordLines(createRng(0x7e47), 256 * 1024);
  let out = '';
  while (out.length < bytes) {
    const start = randInt(rng, 0, pool.length - 4096);
    out += pool.slice(start, start + randInt(rng, 64, 4096));
  }
  return out.slice(0, bytes);
}

// ---------------------------------------------------------------- tar

export interface TarEntry {
  name: string;
  data: Buffer;
  /** Length written in the header when the data is sent separately. */
  size?: number;
  type?: 'file' | 'directory';
  mode?: number;
  mtime?: number;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** A POSIX ustar header with a correct checksum. */
export function tarHeader(entry: TarEntry): Buffer {
  const h = Buffer.alloc(512);
  const dir = entry.type === 'directory';
  h.write(entry.name, 0, 100, 'utf8');
  h.write(octal(entry.mode ?? (dir ? 0o755 : 0o644), 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(dir ? 0 : (entry.size ?? entry.data.length), 12), 124, 'ascii');
  h.write(octal(entry.mtime ?? ARCHIVE_EPOCH_S, 12), 136, 'ascii');
  h.write('        ', 148, 'ascii');
  h.write(dir ? '5' : '0', 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  h.write('root', 265, 32, 'ascii');
  h.write('root', 297, 32, 'ascii');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

/** Entries, each padded to 512 bytes, then the two zero blocks that end an archive. */
export function tarArchive(entries: TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    parts.push(tarHeader(e));
    if (e.type !== 'directory' && e.data.length) {
      parts.push(e.data, Buffer.alloc((512 - (e.data.length % 512)) % 512));
    }
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/**
 * How a job's tree evolves night by night (issue 42.12): the names come from the job (`seed`), not the night. The
 * first tenth of the files churn (a log rotated, a cache file renamed): each night one of them takes a new name,
 * in turn; the others keep theirs. So a night's archive differs from the night before by one file, and from any
 * older night by at most a tenth of its files, as a normal job's does (anomalies' "vanished" needs 30%).
 * `day` is the night's day (days since 1970-01-01, UTC).
 */
export interface TreeLineage {
  seed: number;
  day: number;
  /** How many files the tree keeps (40 in a tar, 12 pages in a website's zip). */
  files?: number;
}

const LINEAGE_FILES = 40;

/** A made-up tree of about `budget` bytes under `root`: names from `lineage` when given, else from `rng`. */
function directoryTree(rng: Rng, root: string, budget: number, lineage?: TreeLineage): TarEntry[] {
  const dirs = ['', 'config/', 'public/', 'public/assets/', 'storage/logs/', 'src/', 'src/lib/'];
  const entries: TarEntry[] = dirs.map((d) => ({ name: `${root}/${d}`, data: Buffer.alloc(0), type: 'directory' }));
  // A job's tree keeps its 40 files whatever the night's size (a small night has small files); else by the budget.
  const count = lineage ? (lineage.files ?? LINEAGE_FILES) : Math.max(3, Math.min(40, Math.floor(budget / 2048)));
  for (let i = 0; i < count; i++) {
    let name: string;
    if (lineage) {
      // The file's place (folder, extension) is the job's; its word changes with its generation.
      const own = createRng((lineage.seed ^ Math.imul(i + 1, 0x9e3779b1)) >>> 0);
      const dir = pick(own, dirs);
      const ext = pick(own, ['php', 'js', 'css', 'json', 'log', 'conf', 'md']);
      const churn = Math.max(1, Math.floor(count / 10));
      // File i < churn renames on the nights whose day is i modulo churn: one file a night.
      const generation = i < churn ? Math.floor((lineage.day - i + churn * 1_000_000) / churn) : 0;
      const word = pick(createRng((lineage.seed ^ Math.imul(i + 1, 0x85ebca6b) ^ Math.imul(generation + 1, 0xc2b2ae35)) >>> 0), WORDS);
      name = `${root}/${dir}${word}-${i}.${ext}`;
    } else {
      const dir = pick(rng, dirs);
      const ext = pick(rng, ['php', 'js', 'css', 'json', 'log', 'conf', 'md']);
      name = `${root}/${dir}${pick(rng, WORDS)}-${i}.${ext}`;
    }
    entries.push({ name, data: Buffer.from(prose(rng, Math.floor(budget / count))) });
  }
  return entries;
}

/** A backup file's job and night from its name (`<job>-YYYY-MM-DD_hh-mm-ss.tar.gz`); a name without a date is a lineage of its own. */
export function lineageOf(fileName: string): TreeLineage {
  const m = /^(.*)-(\d{4}-\d\d-\d\d)_[^/]*$/.exec(fileName);
  if (!m) return { seed: nameSeed(fileName), day: 0 };
  return { seed: nameSeed(m[1]!), day: Math.floor(Date.parse(`${m[2]}T00:00:00Z`) / 86_400_000) };
}

// ---------------------------------------------------------------- gzip

const PADDING_TEXT = 'backupctl emulator: header comment that pads this file to the length its record states. ';

/**
 * One gzip member of exactly `length` bytes (or undefined when `raw` does not
 * compress into it): header with FCOMMENT padding and FHCRC, deflate, CRC32, ISIZE.
 */
export function paddedGzip(raw: Buffer, length: number, mtime = ARCHIVE_EPOCH_S): Buffer | undefined {
  // Level 1 (gzip --fast): the files server makes these on every call.
  const deflated = deflateRawSync(raw, { level: 1 });
  const commentLength = length - (10 + 1 + 2 + deflated.length + 8);
  if (commentLength < 0) return undefined;
  const header = Buffer.alloc(10 + commentLength + 1);
  header.set([0x1f, 0x8b, 8, 0x02 | 0x10], 0);
  header.writeUInt32LE(mtime >>> 0, 4);
  header[8] = 0;
  header[9] = 3;
  Buffer.from(PADDING_TEXT.repeat(Math.ceil(commentLength / PADDING_TEXT.length) || 1)).copy(header, 10, 0, commentLength);
  header[10 + commentLength] = 0;
  const headerCrc = Buffer.alloc(2);
  headerCrc.writeUInt16LE(crc32(header) & 0xffff);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(raw) >>> 0, 0);
  trailer.writeUInt32LE(raw.length >>> 0, 4);
  return Buffer.concat([header, headerCrc, deflated, trailer]);
}

/** Fits made-up content of some budget into a gzip file of `length`: the budget shrinks until it fits. */
function fitGzip(length: number, makeRaw: (budget: number) => Buffer, mtime?: number): Buffer {
  for (let budget = Math.floor(length * 1.8); budget >= 64; budget = Math.floor(budget * 0.7)) {
    const gz = paddedGzip(makeRaw(budget), length, mtime);
    if (gz) return gz;
  }
  // Too small for any content: an empty member still is a valid gzip file when it fits.
  return paddedGzip(Buffer.alloc(0), length, mtime) ?? Buffer.alloc(length);
}

// ---------------------------------------------------------------- dumps

function mysqlDump(rng: Rng, database: string, budget: number, complete: boolean): Buffer {
  const head =
    `-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)\n--\n-- Host: 127.0.0.1    Database: ${database}\n` +
    '-- ------------------------------------------------------\n-- Server version\t8.0.36\n\n' +
    '/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;\n/*!40103 SET TIME_ZONE=\'+00:00\' */;\n\n';
  const tables: string[] = [];
  let length = head.length;
  for (let t = 0; length < budget; t++) {
    const table = `${pick(rng, WORDS)}_${t}`;
    const rows = Array.from({ length: randInt(rng, 5, 40) }, (_, i) => `(${i + 1},'${prose(rng, randInt(rng, 20, 80)).trim().replace(/'/g, '')}',${randInt(rng, 0, 99_999)})`);
    const text =
      `--\n-- Table structure for table \`${table}\`\n--\n\nDROP TABLE IF EXISTS \`${table}\`;\n` +
      `CREATE TABLE \`${table}\` (\n  \`id\` int NOT NULL AUTO_INCREMENT,\n  \`note\` text,\n  \`amount\` int DEFAULT NULL,\n  PRIMARY KEY (\`id\`)\n) ENGINE=InnoDB;\n\n` +
      `LOCK TABLES \`${table}\` WRITE;\nINSERT INTO \`${table}\` VALUES ${rows.join(',')};\nUNLOCK TABLES;\n\n`;
    tables.push(text);
    length += text.length;
  }
  const tail = complete ? '/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;\n\n-- Dump completed on 2024-03-01  2:00:07\n' : '';
  return Buffer.from(head + tables.join('') + tail);
}

function postgresDump(rng: Rng, database: string, budget: number, complete: boolean): Buffer {
  const head =
    '--\n-- PostgreSQL database dump\n--\n\n-- Dumped from database version 16.2\n-- Dumped by pg_dump version 16.2\n\n' +
    `SET statement_timeout = 0;\nSET client_encoding = 'UTF8';\n-- database ${database}\n\n`;
  const parts: string[] = [];
  let length = head.length;
  for (let t = 0; length < budget; t++) {
    const table = `${pick(rng, WORDS)}_${t}`;
    const rows = Array.from({ length: randInt(rng, 5, 40) }, (_, i) => `${i + 1}\t${prose(rng, randInt(rng, 20, 80)).trim()}\t${randInt(rng, 0, 99_999)}`);
    const text =
      `--\n-- Name: ${table}; Type: TABLE; Schema: public; Owner: app\n--\n\nCREATE TABLE public.${table} (\n    id integer NOT NULL,\n    note text,\n    amount integer\n);\n\n` +
      `COPY public.${table} (id, note, amount) FROM stdin;\n${rows.join('\n')}\n\\.\n\n`;
    parts.push(text);
    length += text.length;
  }
  const tail = complete ? '--\n-- PostgreSQL database dump complete\n--\n\n' : '';
  return Buffer.from(head + parts.join('') + tail);
}

/** mongodump --archive, as mongo-tools writes it (mongo-archive.ts). */
function mongoArchive(rng: Rng, database: string, budget: number): Buffer {
  return mongodumpArchive(rng, database, budget, prose);
}

// ---------------------------------------------------------------- zip

interface ZipEntry {
  name: string;
  data: Buffer;
  /** Deflated (8) or stored (0). */
  method: 0 | 8;
}

/** A zip with local headers, a central directory and its end record. */
export function zipArchive(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const body = e.method === 8 ? deflateRawSync(e.data, { level: 1 }) : e.data;
    const crc = crc32(e.data) >>> 0;
    // The local header and the central directory entry share these fields, at 4 and 6.
    const shared = (b: Buffer, at: number) => {
      b.writeUInt16LE(20, at);
      b.writeUInt16LE(0x0800, at + 2);
      b.writeUInt16LE(e.method, at + 4);
      b.writeUInt16LE(0, at + 6);
      b.writeUInt16LE(0x5821, at + 8);
      b.writeUInt32LE(crc, at + 10);
      b.writeUInt32LE(body.length, at + 14);
      b.writeUInt32LE(e.data.length, at + 18);
      b.writeUInt16LE(name.length, at + 22);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    shared(local, 4);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x031e, 4);
    shared(central, 6);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += 30 + name.length + body.length;
  }
  const centralSize = centrals.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}

/** A website export of exactly `length` bytes: pages deflated, one stored image taking the slack. */
function websiteZip(rng: Rng, length: number, lineage?: TreeLineage): Buffer {
  const image = 'site/assets/hero.jpg';
  for (let budget = Math.floor(length * 1.5); budget >= 64; budget = Math.floor(budget * 0.7)) {
    const pages: ZipEntry[] = directoryTree(rng, 'site', budget, lineage && { ...lineage, files: 12 })
      .filter((e) => e.type !== 'directory')
      .map((e) => ({ name: e.name, data: e.data, method: 8 }));
    const without = zipArchive(pages).length + 30 + 46 + 2 * image.length;
    if (without > length) continue;
    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), pseudoRandomBytes(nameSeed(image) ^ budget, length - without)]).subarray(0, length - without);
    return zipArchive([...pages, { name: image, data: jpeg, method: 0 }]);
  }
  return Buffer.alloc(length);
}

// ---------------------------------------------------------------- other

/** Fast deterministic noise: AES-256-CTR over zeros, keyed by `seed`. */
export function pseudoRandomBytes(seed: number, length: number): Buffer {
  const key = createHash('sha256').update(`backupctl-emulator:${seed}`).digest();
  return createCipheriv('aes-256-ctr', key, Buffer.alloc(16)).update(Buffer.alloc(length));
}

/** OpenSSL's `enc` format: "Salted__", an 8-byte salt, then ciphertext. */
function encryptedBlob(seed: number, length: number): Buffer {
  const body = pseudoRandomBytes(seed, Math.max(0, length - 8));
  return Buffer.concat([Buffer.from('Salted__'), body]).subarray(0, length);
}

/** A sha256sum list of exactly `length` bytes, whole lines only: the last name is stretched to fit. */
function checksumList(rng: Rng, length: number): Buffer {
  const lines: string[] = [];
  let n = 0;
  // The shortest line: 64 hex digits, two spaces, a one-letter name, a newline.
  const SHORTEST = 68;
  for (let i = 0; n < length; i++) {
    const hash = createHash('sha256').update(String(rng())).digest('hex');
    const name = `./${pick(rng, WORDS)}/${pick(rng, WORDS)}-${i}.tar`;
    let line = `${hash}  ${name}\n`;
    if (length - n < SHORTEST) {
      // Too short for a line (a list under 68 bytes): cut, as before.
      line = line.slice(0, length - n);
    } else if (length - n - line.length < SHORTEST) {
      const room = length - n - 64 - 2 - 1;
      line = `${hash}  ${name.length >= room ? name.slice(0, room) : name.replace(/\.tar$/, `${'_'.repeat(room - name.length)}.tar`)}\n`;
    }
    lines.push(line);
    n += line.length;
  }
  return Buffer.from(lines.join(''));
}

// ---------------------------------------------------------------- hostile archives

const MIB = 1024 * 1024;
let zeroMiB: { deflated: Buffer; crc: number } | undefined;
/** One MiB of zeros deflated as non-final blocks ending on a byte boundary: copies can follow one another. */
function deflatedZeroMiB(): { deflated: Buffer; crc: number } {
  zeroMiB ??= { deflated: deflateRawSync(Buffer.alloc(MIB), { finishFlush: zlibConstants.Z_SYNC_FLUSH }), crc: crc32(Buffer.alloc(MIB)) >>> 0 };
  return zeroMiB;
}
/** The final, empty deflate block. */
const DEFLATE_END = Buffer.from([0x03, 0x00]);

/** `mib` MiB of zeros, deflated. */
function deflatedZeros(mib: number): Buffer {
  const { deflated } = deflatedZeroMiB();
  return Buffer.concat([...Array.from({ length: mib }, () => deflated), DEFLATE_END]);
}

/** A 32x32 matrix over GF(2) times a vector (zlib's crc32_combine). */
function gf2Times(matrix: Uint32Array, vector: number): number {
  let sum = 0;
  for (let i = 0; vector; i++, vector >>>= 1) if (vector & 1) sum ^= matrix[i]!;
  return sum >>> 0;
}

function gf2Square(matrix: Uint32Array): Uint32Array {
  const out = new Uint32Array(32);
  for (let i = 0; i < 32; i++) out[i] = gf2Times(matrix, matrix[i]!);
  return out;
}

/** CRC-32 of `mib` MiB of zeros, without reading them: zlib's crc32_combine over zeros (1 GiB in microseconds). */
function zerosCrc(mib: number): number {
  let crc = crc32(Buffer.alloc(MIB)) >>> 0;
  // Appending n zero bytes maps the register linearly: the operator for one zero bit, squared up to 1 MiB of zeros.
  let op: Uint32Array = new Uint32Array(32);
  op[0] = 0xedb88320;
  for (let i = 1; i < 32; i++) op[i] = 1 << (i - 1);
  for (let bits = 1; bits < MIB * 8; bits *= 2) op = gf2Square(op);
  // The CRC register is pre- and post-inverted: step the raw register.
  for (let n = mib - 1; n > 0; n >>= 1) {
    if (n & 1) crc = (~gf2Times(op, ~crc >>> 0)) >>> 0;
    op = gf2Square(op);
  }
  return crc >>> 0;
}

const GZIP_ZEROS_MIB = 4096;
const ZIP_ZEROS_ENTRIES = 2000;
const ZIP_BOMB_ENTRIES = 20_000;
const ZIP_BOMB_MIB = 8;

interface RawZipEntry {
  name: string;
  body: Buffer;
  crc: number;
  size: number;
  /** Where the central directory says its local header is (the bomb points them all at one). */
  offset?: number;
  /** Written as a local header and body (false: listed in the central directory only). */
  local?: boolean;
}

/** A zip from entries already compressed (method 8). */
function rawZip(entries: RawZipEntry[]): Buffer {
  const parts: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const shared = (b: Buffer, at: number) => {
      b.writeUInt16LE(20, at);
      b.writeUInt16LE(0x0800, at + 2);
      b.writeUInt16LE(8, at + 4);
      b.writeUInt32LE(e.crc, at + 10);
      b.writeUInt32LE(e.body.length, at + 14);
      b.writeUInt32LE(e.size, at + 18);
      b.writeUInt16LE(name.length, at + 22);
    };
    const at = e.offset ?? offset;
    if (e.local !== false) {
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      shared(local, 4);
      parts.push(local, name, e.body);
      offset += 30 + name.length + e.body.length;
    }
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x031e, 4);
    shared(central, 6);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    central.writeUInt32LE(at, 42);
    centrals.push(central, name);
  }
  const centralSize = centrals.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, ...centrals, end]);
}

/** The bytes of a hostile archive (their length is fixed: hostileLength). */
export function hostileArchive(kind: HostileKind): Buffer {
  switch (kind) {
    case 'gzip-zeros': {
      const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
      header.writeUInt32LE(ARCHIVE_EPOCH_S, 4);
      const trailer = Buffer.alloc(8);
      trailer.writeUInt32LE(zerosCrc(GZIP_ZEROS_MIB), 0);
      trailer.writeUInt32LE((GZIP_ZEROS_MIB * MIB) % 2 ** 32, 4);
      return Buffer.concat([header, deflatedZeros(GZIP_ZEROS_MIB), trailer]);
    }
    case 'zip-zeros': {
      const body = deflatedZeros(1);
      const crc = deflatedZeroMiB().crc;
      return rawZip(Array.from({ length: ZIP_ZEROS_ENTRIES }, (_, i) => ({ name: `zeros/${String(i).padStart(4, '0')}.bin`, body, crc, size: MIB })));
    }
    case 'zip-bomb': {
      const body = deflatedZeros(ZIP_BOMB_MIB);
      const crc = zerosCrc(ZIP_BOMB_MIB);
      return rawZip(
        Array.from({ length: ZIP_BOMB_ENTRIES }, (_, i) => ({ name: `bomb/${String(i).padStart(5, '0')}.bin`, body, crc, size: ZIP_BOMB_MIB * MIB, offset: 0, local: i === 0 })),
      );
    }
  }
}

/** The length of a hostile archive, without making it. */
export function hostileLength(kind: HostileKind): number {
  const block = deflatedZeroMiB().deflated.length;
  // Names are fixed-width: zeros/0000.bin and bomb/00000.bin, 14 bytes each.
  const name = 14;
  switch (kind) {
    case 'gzip-zeros':
      return 10 + GZIP_ZEROS_MIB * block + DEFLATE_END.length + 8;
    case 'zip-zeros':
      return ZIP_ZEROS_ENTRIES * (30 + 46 + 2 * name + block + DEFLATE_END.length) + 22;
    case 'zip-bomb':
      return 30 + name + ZIP_BOMB_MIB * block + DEFLATE_END.length + ZIP_BOMB_ENTRIES * (46 + name) + 22;
  }
}

export interface ArchiveSpec {
  kind: ArchiveKind;
  /** Seeds the generator: the same name gives the same bytes. */
  name: string;
  length: number;
  /** Leave the dump's end marker off. */
  incomplete?: boolean;
  /** Break the second tar header (its checksum no longer matches). */
  badTarHeader?: boolean;
  /** A tar entry named `../<name>` after the first file: intact bytes, a path that leads outside (restore-test refuses it). */
  dotdotEntry?: boolean;
  /** The gzip header's MTIME (the files server's --changing-files moves it). */
  gzipMtime?: number;
}

/** The bytes of one backup file. */
export function buildArchive(spec: ArchiveSpec): Buffer {
  const seed = nameSeed(spec.name);
  const rng = createRng(seed);
  const database = spec.name.replace(/-\d{4}-\d\d-\d\d_.*$/, '').replace(/[^a-z0-9]+/gi, '_');
  switch (spec.kind) {
    case 'tar.gz':
      return fitGzip(
        spec.length,
        (budget) => {
          const tree = directoryTree(createRng(seed ^ budget), 'data', budget, lineageOf(spec.name));
          if (spec.dotdotEntry) tree.splice(tree.findIndex((e) => e.type !== 'directory') + 1, 0, { name: '../escaped-by-archive.txt', data: Buffer.from('written outside the extraction folder\n') });
          const tar = tarArchive(tree);
          // The name of the second entry changes after its checksum was written.
          if (spec.badTarHeader) tar[512 * 2] = tar[512 * 2]! ^ 0x20;
          return tar;
        },
        spec.gzipMtime,
      );
    case 'mysql':
    case 'postgres': {
      // A complete dump is the real one (restore-test loads it) when it fits the stated length; else made up.
      const real = spec.incomplete ? null : realDump(spec.kind);
      const fitted = real && paddedGzip(real, spec.length, spec.gzipMtime);
      if (fitted) return fitted;
      const make = spec.kind === 'mysql' ? mysqlDump : postgresDump;
      return fitGzip(spec.length, (budget) => make(createRng(seed ^ budget), database, budget, !spec.incomplete), spec.gzipMtime);
    }
    case 'mongo':
      return fitGzip(spec.length, (budget) => mongoArchive(createRng(seed ^ budget), database, budget), spec.gzipMtime);
    case 'zip':
      return websiteZip(rng, spec.length, lineageOf(spec.name));
    case 'encrypted':
      return encryptedBlob(seed ^ (spec.gzipMtime ?? 0), spec.length);
    case 'checksums':
      return checksumList(rng, spec.length);
    case 'zip-bomb':
    case 'zip-zeros':
    case 'gzip-zeros':
      return hostileArchive(spec.kind);
    case 'tar-zeros':
    case 'tar-many':
    case 'tar-dangling':
    case 'tar-chain':
      return restoreHostileArchive(spec.kind);
  }
}

// ---------------------------------------------------------------- hostile archives for restore-test

/**
 * Archives that attack restore-test's extraction (issue 28 §4, §6; jobs in src/emulator/restore-fixtures.ts):
 * tar-zeros    a .tar.gz whose one entry is 1 GiB of zeros (about 1 MB: three gzip members, header, zeros, end);
 * tar-many     a .tar.gz of 50,000 empty files (stored, not compressed: its length is known without making it);
 * tar-dangling `x -> .` then `report.txt -> x/x/x/../../../escaped-by-link.txt`: read as text it stays inside,
 *              walked as the file system walks it, three levels above the folder;
 * tar-chain    `a -> d/..` made before `d -> .`: harmless when made, the folder's parent once d exists.
 * Each also holds an ordinary file, so nothing else fails first.
 */
export type RestoreHostileKind = 'tar-zeros' | 'tar-many' | 'tar-dangling' | 'tar-chain';

const TAR_ZEROS_MIB = 1024;
const TAR_MANY_ENTRIES = 50_000;

/** A tar header of a symbolic link (typeflag 2). */
function symlinkHeader(name: string, target: string): Buffer {
  const h = tarHeader({ name, data: Buffer.alloc(0), mode: 0o777 });
  h[156] = 0x32;
  h.write(target, 157, 100, 'utf8');
  h.write('        ', 148, 'ascii');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

/** The tar of `tar-many`: 50,000 empty files many/00000.txt..., headers made from one template (its checksum adjusted). */
function manyEntriesTar(): Buffer {
  const out = Buffer.alloc(TAR_MANY_ENTRIES * 512 + 1024);
  const template = tarHeader({ name: 'many/00000.txt', data: Buffer.alloc(0) });
  const base = template.subarray(0, 148).reduce((n, b) => n + b, 0) + 8 * 0x20 + template.subarray(156).reduce((n, b) => n + b, 0) - 5 * 0x30;
  for (let i = 0; i < TAR_MANY_ENTRIES; i++) {
    const h = out.subarray(i * 512, i * 512 + 512);
    template.copy(h);
    const digits = String(i).padStart(5, '0');
    h.write(digits, 5, 'ascii');
    let sum = base;
    for (let d = 0; d < 5; d++) sum += digits.charCodeAt(d);
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  }
  return out;
}

/** `raw` as a gzip of stored deflate blocks (no compression): its length is raw + 5 a block + 18. */
function storedGzip(raw: Buffer): Buffer {
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
  header.writeUInt32LE(ARCHIVE_EPOCH_S, 4);
  const parts: Buffer[] = [header];
  for (let at = 0; at < raw.length; at += STORED_BLOCK) {
    const block = raw.subarray(at, at + STORED_BLOCK);
    const head = Buffer.alloc(5);
    head[0] = at + STORED_BLOCK >= raw.length ? 1 : 0;
    head.writeUInt16LE(block.length, 1);
    head.writeUInt16LE(~block.length & 0xffff, 3);
    parts.push(head, block);
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(raw) >>> 0, 0);
  trailer.writeUInt32LE(raw.length % 2 ** 32, 4);
  parts.push(trailer);
  return Buffer.concat(parts);
}

/** A small tar.gz of `entries` (headers and data already made), then the end blocks. */
const smallTarGz = (entries: Buffer[]) => gzipSync(Buffer.concat([...entries, Buffer.alloc(1024)]), { level: 9 });
const okFile = () => tarArchive([{ name: 'data/ok.txt', data: Buffer.from('an ordinary file\n') }]).subarray(0, 1024);

/** The parts of `tar-zeros`: the entry's header and the end blocks as two small gzip members around the zeros. */
function tarZerosMembers(): { head: Buffer; tail: Buffer } {
  const header = tarHeader({ name: 'data/zeros.img', data: Buffer.alloc(0), size: TAR_ZEROS_MIB * MIB });
  return { head: gzipSync(Buffer.concat([okFile(), header]), { level: 9 }), tail: gzipSync(Buffer.alloc(1024), { level: 9 }) };
}

/** The bytes of a hostile archive for restore-test. */
export function restoreHostileArchive(kind: RestoreHostileKind): Buffer {
  switch (kind) {
    case 'tar-zeros': {
      const { head, tail } = tarZerosMembers();
      const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
      header.writeUInt32LE(ARCHIVE_EPOCH_S, 4);
      const trailer = Buffer.alloc(8);
      trailer.writeUInt32LE(zerosCrc(TAR_ZEROS_MIB), 0);
      trailer.writeUInt32LE((TAR_ZEROS_MIB * MIB) % 2 ** 32, 4);
      return Buffer.concat([head, header, deflatedZeros(TAR_ZEROS_MIB), trailer, tail]);
    }
    case 'tar-many':
      return storedGzip(manyEntriesTar());
    case 'tar-dangling':
      return smallTarGz([okFile(), symlinkHeader('x', '.'), symlinkHeader('report.txt', 'x/x/x/../../../escaped-by-link.txt')]);
    case 'tar-chain':
      return smallTarGz([okFile(), symlinkHeader('a', 'd/..'), symlinkHeader('d', '.')]);
  }
}

/** The length of a hostile archive for restore-test, without making the big ones. */
export function restoreHostileLength(kind: RestoreHostileKind): number {
  switch (kind) {
    case 'tar-zeros': {
      const { head, tail } = tarZerosMembers();
      return head.length + 10 + TAR_ZEROS_MIB * deflatedZeroMiB().deflated.length + DEFLATE_END.length + 8 + tail.length;
    }
    case 'tar-many': {
      const raw = TAR_MANY_ENTRIES * 512 + 1024;
      return 10 + raw + 5 * Math.ceil(raw / STORED_BLOCK) + 8;
    }
    default:
      return restoreHostileArchive(kind).length;
  }
}

// ---------------------------------------------------------------- a big .tar.gz as a stream

const STORED_BLOCK = 65_535;
const BIG_ENTRY = 64 * 1024 * 1024;

/** How a streamed .tar.gz of exactly `total` bytes is laid out: tar length and the FEXTRA padding. */
function bigLayout(total: number): { tarLength: number; extra: number } {
  // gzip: 10 header + 2 + extra (FEXTRA) + stored blocks (5 bytes each + data) + 8 trailer.
  let tarLength = Math.floor((total - 20 - 16) / 512) * 512;
  while (tarLength > 0 && 20 + 16 + tarLength + 5 * Math.ceil(tarLength / STORED_BLOCK) > total) tarLength -= 512;
  const extra = total - 20 - tarLength - 5 * Math.ceil(tarLength / STORED_BLOCK);
  if (tarLength < 2048 || extra < 4 || extra > 65_535) throw new Error(`no .tar.gz layout of ${total} bytes`);
  return { tarLength, extra };
}

/** The tar stream of the big file, in pieces: 64 MiB entries of noise, then the end blocks. */
function* bigTarPieces(tarLength: number): Generator<Buffer> {
  const noise = pseudoRandomBytes(0xb16f11e, 1024 * 1024);
  let left = tarLength - 1024;
  for (let i = 0; left > 0; i++) {
    const data = Math.min(BIG_ENTRY, left - 512);
    yield tarHeader({ name: `data/volume-${String(i).padStart(3, '0')}.img`, data: Buffer.alloc(0), size: data });
    for (let sent = 0; sent < data; sent += noise.length) yield noise.subarray(0, Math.min(noise.length, data - sent));
    left -= 512 + data;
  }
  yield Buffer.alloc(1024);
}

/**
 * A deterministic .tar.gz of exactly `total` bytes made while it is sent (never
 * held in memory): stored deflate blocks, so the emulator's CPU is not what a
 * benchmark measures. Bytes before `start` are made and dropped (resumes).
 */
export function bigTarGzStream(total: number, start = 0, end = total - 1): Readable {
  const { tarLength, extra } = bigLayout(total);
  const pieces = bigTarPieces(tarLength);
  let pending: Buffer = Buffer.alloc(0);
  let position = 0;
  let crc = 0;
  let tarSent = 0;
  let done = false;
  function* gzipParts(): Generator<Buffer> {
    const header = Buffer.alloc(12 + extra);
    header.set([0x1f, 0x8b, 8, 0x04], 0);
    header.writeUInt32LE(ARCHIVE_EPOCH_S, 4);
    header[9] = 3;
    header.writeUInt16LE(extra, 10);
    header.write('BP', 12, 'ascii');
    header.writeUInt16LE(extra - 4, 14);
    yield header;
    for (const piece of pieces) {
      pending = pending.length ? Buffer.concat([pending, piece]) : piece;
      while (pending.length >= STORED_BLOCK || (pending.length && tarSent + pending.length === tarLength)) {
        const block = pending.subarray(0, STORED_BLOCK);
        pending = pending.subarray(block.length);
        tarSent += block.length;
        const head = Buffer.alloc(5);
        head[0] = tarSent === tarLength ? 1 : 0;
        head.writeUInt16LE(block.length, 1);
        head.writeUInt16LE(~block.length & 0xffff, 3);
        crc = crc32(block, crc);
        yield head;
        yield block;
      }
    }
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(crc >>> 0, 0);
    trailer.writeUInt32LE(tarLength % 2 ** 32, 4);
    yield trailer;
  }
  const parts = gzipParts();
  return new Readable({
    highWaterMark: 1024 * 1024,
    read() {
      const batch: Buffer[] = [];
      let size = 0;
      while (size < 1024 * 1024) {
        const next = parts.next();
        if (next.done) {
          done = true;
          break;
        }
        let part = next.value;
        const from = position;
        position += part.length;
        if (position <= start || from > end) continue;
        part = part.subarray(Math.max(0, start - from), Math.min(part.length, end + 1 - from));
        batch.push(part);
        size += part.length;
      }
      if (batch.length) this.push(batch.length === 1 ? batch[0] : Buffer.concat(batch, size));
      if (done || position > end) this.push(null);
    },
  });
}
