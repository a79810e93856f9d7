// Real backup files for the files server: a .tar.gz of a made-up directory
// tree, .sql.gz dumps as mysqldump and pg_dump write them, a mongodump archive,
// a website .zip, an encrypted blob and a checksum list. Everything is drawn
// from a generator seeded by the file's name, so the bytes are the same on
// every call, and every file is exactly as long as its record says: gzip files
// carry the slack in a header comment protected by the header CRC (FHCRC), a
// zip in a stored image entry. Nothing here reads the clock.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { ARCHIVE_EPOCH_S, STORED_BLOCK, paddedGzip, pseudoRandomBytes, tarArchive, tarHeader, zipArchive, type TarEntry, type ZipEntry } from './archive-formats.js';
import { hostileArchive, restoreHostileArchive, type HostileKind, type RestoreHostileKind } from './hostile-archives.js';
import { mongodumpArchive } from './mongo-archive.js';
import { realDump } from './real-dumps.js';
import { createRng, nameSeed, pick, randInt, type Rng } from './util.js';

export type ArchiveKind = 'tar.gz' | 'mysql' | 'postgres' | 'mongo' | 'zip' | 'checksums' | 'encrypted' | HostileKind | RestoreHostileKind;

/** A damage the files server plants, for `verify` to find; `dotdot-entry` (a valid tar.gz with a `../` entry) is for restore-test, not in FILE_FAULTS. */
export type FileFault = 'truncated' | 'flipped-byte' | 'bad-tar-header' | 'no-end-marker' | 'wrong-size' | 'dotdot-entry';
export const FILE_FAULTS = ['truncated', 'flipped-byte', 'bad-tar-header', 'no-end-marker', 'wrong-size'] as const satisfies readonly FileFault[];

const WORDS = [
  'backup', 'order', 'customer', 'invoice', 'static', 'assets', 'config', 'server', 'payment', 'session',
  'cache', 'public', 'report', 'export', 'module', 'vendor', 'kernel', 'upload', 'thumbnail', 'release',
  'nginx', 'daemon', 'record', 'ledger', 'archive', 'schema', 'index', 'request', 'response', 'account',
];

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

// ---------------------------------------------------------------- a big .tar.gz as a stream

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
