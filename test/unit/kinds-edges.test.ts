// The one registry of content kinds and its sniffer (src/pipeline/kinds.ts) at their edges:
// what verify prints and restore-test says for each kind; the kind of the shortest headers
// (gzip, PGDMP, the mongodump magic, both zip signatures, ustar and v7 tar headers with their
// checksum and the empty-block guard); every OpenPGP packet header form (new and old format,
// each length encoding, each version a session key packet has); the other encryption
// headers and how verify names them; a sha256sum list's first line; the SQL dumps by banner
// and by the statements only their tool writes; the banner that makes verify ask for the
// end marker; and verify's format read back. Written for the survivors of `npm run mutate`
// on kinds.ts (issue 31).
import { describe, expect, it } from 'vitest';
import { KINDS, KIND_IDS, SHA256_LINE, encryptionHeader, isGzip, isTarHeader, kindOfFormat, sniffContent, type ContentKind } from '../../src/pipeline/kinds.js';
import { readBackups } from '../../src/pipeline/index.js';
import { DispatchSink } from '../../src/restore/dispatch.js';
import { tarArchive } from '../../src/emulator/archive-formats.js';
import type { FileRestore } from '../../src/restore/types.js';
import { memoryTransfer } from '../helpers/transfer.js';
import { v7Tar } from '../helpers/tar.js';

const bytes = (...b: number[]) => Buffer.from(b);
const text = (s: string) => Buffer.from(s, 'latin1');
const kindOf = (b: Buffer, o?: { gzip?: boolean }) => sniffContent(b, o);

const pipelineBackup = (b: Buffer) => ({ id: 'b1', created_at: null, status: 'completed', encrypted: false, files: [{ name: 'file', url: 'u', size: b.length }] });
const base = { parallel: 1, signal: new AbortController().signal, now: () => new Date(0) };

/** What verify says of these bytes (the pipeline with no sink). */
async function verifyOf(b: Buffer) {
  const [[out]] = await readBackups([pipelineBackup(b)], { ...base, transfer: memoryTransfer(b) });
  return out!.result;
}

/** What restore-test says of these bytes (kinds no engine takes: no engine is started). */
async function restoreOf(b: Buffer, asserts: string[] = []) {
  const fatal: unknown[] = [];
  const sink = new DispatchSink({ engine: 'server', asserts, execTimeoutMs: 5_000, keep: false, allowEmpty: false, signal: new AbortController().signal, encrypted: false, onFatal: (e) => fatal.push(e) });
  const [[out]] = await readBackups<FileRestore>([pipelineBackup(b)], { ...base, transfer: memoryTransfer(b), sinks: () => [sink] });
  const extra = out!.extras[0]!;
  return { restore: extra.ok ? extra.value : undefined, fatal };
}

describe('the registry', () => {
  it('the kinds, in the order restore-test\'s schema lists them', () => {
    expect([...KIND_IDS]).toEqual(['mysql', 'pg-plain', 'pg-custom', 'sqlite', 'sqlite-dump', 'mongo-archive', 'tar', 'zip', 'sha256sums', 'openssl-enc', 'age', 'openpgp', 'gzip', 'unknown']);
    expect(Object.keys(KINDS)).toEqual([...KIND_IDS]);
  });

  // format: verify's word; words: how restore-test's messages name it; check: how verify reads it;
  // statements: the dialect its SQL is read in; marker: the end of a whole dump.
  const EXPECTED: Record<ContentKind, object> = {
    mysql: { format: 'mysqldump', words: 'a MySQL dump', check: 'sql-dump', encrypted: undefined, statements: 'mysql', marker: '-- Dump completed' },
    'pg-plain': { format: 'pg_dump', words: 'a PostgreSQL plain dump', check: 'sql-dump', encrypted: undefined, statements: 'postgres', marker: '-- PostgreSQL database dump complete' },
    'pg-custom': { format: 'pg_dump-custom', words: 'a PostgreSQL custom-format dump', check: 'pg-custom', encrypted: undefined, statements: undefined, marker: undefined },
    sqlite: { format: 'sqlite', words: 'a SQLite database', check: 'opaque', encrypted: undefined, statements: undefined, marker: undefined },
    'sqlite-dump': { format: 'sqlite-dump', words: 'a SQLite dump', check: 'sql-dump', encrypted: undefined, statements: undefined, marker: 'COMMIT;' },
    'mongo-archive': { format: 'mongodump', words: 'a mongodump archive', check: 'mongo-archive', encrypted: undefined, statements: undefined, marker: undefined },
    tar: { format: 'tar', words: 'a tar archive', check: 'tar', encrypted: undefined, statements: undefined, marker: undefined },
    zip: { format: 'zip', words: 'a zip archive', check: 'zip', encrypted: undefined, statements: undefined, marker: undefined },
    sha256sums: { format: 'sha256sums', words: 'a sha256 list', check: 'sha256sums', encrypted: undefined, statements: undefined, marker: undefined },
    'openssl-enc': { format: 'openssl-enc', words: 'OpenSSL enc encrypted data', check: 'encrypted', encrypted: true, statements: undefined, marker: undefined },
    age: { format: 'age', words: 'age encrypted data', check: 'encrypted', encrypted: true, statements: undefined, marker: undefined },
    openpgp: { format: 'openpgp', words: 'OpenPGP encrypted data', check: 'encrypted', encrypted: true, statements: undefined, marker: undefined },
    gzip: { format: 'gzip', words: 'a gzip inside a gzip', check: 'opaque', encrypted: undefined, statements: undefined, marker: undefined },
    unknown: { format: 'data', words: 'data of a kind backupctl does not read', check: 'opaque', encrypted: undefined, statements: undefined, marker: undefined },
  };

  it.each(KIND_IDS)('%s: verify\'s format, restore-test\'s words, the check, the SQL dialect, the end marker', (k) => {
    const s = KINDS[k];
    expect({ format: s.format, words: s.words, check: s.check, encrypted: s.encrypted, statements: s.statements, marker: s.endMarker?.marker }).toStrictEqual(EXPECTED[k]);
  });

  it('SQLite: the file\'s 16-byte magic, and the first two lines sqlite3 .dump writes', () => {
    const file = Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(84)]);
    expect(kindOf(file)).toBe('sqlite');
    expect(kindOf(file.subarray(0, 15))).toBe('unknown');
    expect(kindOf(Buffer.from('SQLite format 3\n' + 'x'.repeat(100)))).toBe('unknown');
    expect(kindOf(Buffer.from('PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\nCREATE TABLE t(a);\nCOMMIT;\n'))).toBe('sqlite-dump');
    expect(kindOf(Buffer.from('PRAGMA foreign_keys=OFF;\r\nBEGIN TRANSACTION;\r\nCOMMIT;\r\n'))).toBe('sqlite-dump');
    // Not the dump's opening: another PRAGMA first, or the transaction without the PRAGMA.
    expect(kindOf(Buffer.from('PRAGMA journal_mode=WAL;\nBEGIN TRANSACTION;\n'))).toBe('unknown');
    expect(kindOf(Buffer.from('BEGIN TRANSACTION;\nCREATE TABLE t(a);\n'))).toBe('unknown');
  });

  it('verify\'s format read back to its kind, inside a gzip too', () => {
    for (const k of KIND_IDS.filter((k) => k !== 'gzip')) {
      expect(kindOfFormat(KINDS[k].format)).toBe(k);
      expect(kindOfFormat(`${KINDS[k].format}.gz`)).toBe(k);
    }
    expect(kindOfFormat('gzip')).toBe('unknown');
    expect(kindOfFormat('gzip.gz')).toBe('gzip');
    expect(kindOfFormat('not-read')).toBeUndefined();
    expect(kindOfFormat('gz')).toBeUndefined();
    expect(kindOfFormat('.gz')).toBeUndefined();
  });
});

describe('what restore-test says of a kind no engine takes', () => {
  it('encrypted bytes: the registry\'s words for them', async () => {
    const age = await restoreOf(text(`age-encryption.org/v1\n-> X25519 abc\n${'x'.repeat(600)}`));
    expect(age.restore).toMatchObject({ kind: 'age', verdict: 'not-restorable', warnings: ['encrypted (age encrypted data): its bytes cannot be restored here'] });
    const enc = await restoreOf(Buffer.concat([text('Salted__'), Buffer.alloc(600, 0x5a)]));
    expect(enc.restore).toMatchObject({ kind: 'openssl-enc', verdict: 'not-restorable', warnings: ['encrypted (OpenSSL enc encrypted data): its bytes cannot be restored here'] });
  });

  it('an encrypted file is no reason to refuse --assert; a tar is, named by its words', async () => {
    const pgp = await restoreOf(text(`-----BEGIN PGP MESSAGE-----\n\n${'hQEMA'.repeat(100)}\n`), ['SELECT 1']);
    expect(pgp.fatal).toEqual([]);
    expect(pgp.restore).toMatchObject({ kind: 'openpgp', verdict: 'not-restorable', warnings: ['encrypted (OpenPGP encrypted data): its bytes cannot be restored here'] });
    const tar = await restoreOf(tarArchive([{ name: 'a.txt', data: Buffer.from('a\n') }]), ['SELECT 1']);
    expect(tar.fatal).toHaveLength(1);
    expect((tar.fatal[0] as Error).message).toBe('--assert runs SQL in a restored database, but this backup holds a tar archive: check it with --exec instead');
  });

  it('a checksum list and unknown bytes', async () => {
    const list = await restoreOf(text(`${'a'.repeat(64)}  site.tar.gz\n`));
    expect(list.restore).toMatchObject({ kind: 'sha256sums', verdict: 'not-restorable', warnings: ['not restored: a sha256 list (verify checks the backup\'s other files against it)'] });
    const data = await restoreOf(text('just some notes\n'));
    expect(data.restore).toMatchObject({ kind: 'unknown', verdict: 'not-restorable' });
  });
});

describe('the shortest headers', () => {
  it('gzip: 1f 8b, both bytes, two are enough', () => {
    expect(isGzip(bytes(0x1f, 0x8b))).toBe(true);
    expect(kindOf(bytes(0x1f, 0x8b, 0x08, 0x00))).toBe('gzip');
    expect(isGzip(bytes(0x1f))).toBe(false);
    expect(isGzip(bytes(0x00, 0x8b))).toBe(false);
    expect(isGzip(bytes(0x1f, 0x00))).toBe(false);
    expect(kindOf(bytes(0x00, 0x8b, 0x08, 0x00))).toBe('unknown');
    expect(kindOf(bytes(0x1f, 0x00, 0x08, 0x00))).toBe('unknown');
  });

  it('PGDMP, the mongodump magic and both zip signatures, each on its own', () => {
    expect(kindOf(text('PGDMP'))).toBe('pg-custom');
    expect(kindOf(text('PGDM'))).toBe('unknown');
    const magic = Buffer.alloc(4);
    magic.writeUInt32LE(0x8199e26d);
    expect(kindOf(magic)).toBe('mongo-archive');
    expect(kindOf(text('PK\x03\x04'))).toBe('zip');
    // An empty zip is its end-of-central-directory record alone.
    expect(kindOf(Buffer.concat([text('PK\x05\x06'), Buffer.alloc(18)]))).toBe('zip');
    expect(kindOf(text('PK\x01\x02'))).toBe('unknown');
  });

  it('fewer than four bytes: no magic is read past the end', () => {
    for (const short of [text('abc'), text('PK'), bytes(0x6d, 0xe2, 0x99), Buffer.alloc(0)]) expect(kindOf(short), short.toString('hex')).toBe('unknown');
  });
});


describe('tar headers', () => {
  it('a ustar header is a tar on its magic, whatever its checksum says', () => {
    const tar = tarArchive([{ name: 'a.txt', data: Buffer.from('a\n') }]);
    const header = Buffer.from(tar.subarray(0, 512));
    expect(isTarHeader(header)).toBe(true);
    header.write('0000000\0', 148, 'latin1');
    expect(isTarHeader(header)).toBe(true);
    expect(kindOf(header)).toBe('tar');
  });

  it('a v7 header by its checksum: the header alone is enough, one byte changed is not a tar', () => {
    const header = Buffer.from(v7Tar().subarray(0, 512));
    expect(isTarHeader(header)).toBe(true);
    expect(kindOf(header)).toBe('tar');
    expect(kindOf(v7Tar())).toBe('tar');
    // The type flag right after the checksum field ('0' -> '1'), then the byte right before it.
    const flag = Buffer.from(header);
    flag[156] = flag[156]! + 1;
    expect(isTarHeader(flag)).toBe(false);
    const name = Buffer.from(header);
    name[147] = name[147]! + 1;
    expect(isTarHeader(name)).toBe(false);
  });

  it('a header checksum field that is not a number: not a tar', () => {
    const header = Buffer.from(v7Tar().subarray(0, 512));
    header.write('xxxxxxx\0', 148, 'latin1');
    expect(isTarHeader(header)).toBe(false);
  });

  it('an empty block whose checksum field says 256 (eight spaces) is not a tar header', () => {
    const block = Buffer.alloc(512);
    block.write('000400\0 ', 148, 'latin1');
    expect(isTarHeader(block)).toBe(false);
    expect(kindOf(block)).toBe('unknown');
  });

  it('text or bytes of 512 whose checksum does not add up: not a tar', () => {
    const letters = Buffer.from(Array.from({ length: 600 }, (_, i) => 0x61 + (i % 26)));
    expect(isTarHeader(letters)).toBe(false);
    expect(kindOf(letters)).toBe('unknown');
  });

  it('fewer than 512 bytes is no tar header, even with the ustar magic in place', () => {
    const short = Buffer.alloc(300, 0x61);
    short.write('ustar', 257, 'latin1');
    expect(isTarHeader(short)).toBe(false);
    expect(kindOf(short)).toBe('unknown');
  });
});

describe('OpenPGP binary packets (a session key packet first)', () => {
  // New format: 0xc0 | tag, then a length of 1, 2 or 5 octets; the version follows.
  // Old format: 0x80 | tag << 2 | length type (0: 1 octet, 1: 2, 2: 4, 3: indeterminate).
  const pgp = (...b: number[]) => kindOf(bytes(...b));

  it('tag 1 (public-key encrypted session key): versions 3 and 6 only', () => {
    expect(pgp(0xc1, 0x0c, 0x03, 0x00)).toBe('openpgp');
    expect(pgp(0xc1, 0x0c, 0x06, 0x00)).toBe('openpgp');
    expect(pgp(0xc1, 0x0c, 0x04, 0x00)).toBe('unknown');
    expect(pgp(0xc1, 0x0c, 0x05, 0x00)).toBe('unknown');
  });

  it('tag 3 (symmetric-key encrypted session key): versions 4 to 6 only', () => {
    expect(pgp(0xc3, 0x0d, 0x03, 0x00)).toBe('unknown');
    expect(pgp(0xc3, 0x0d, 0x04, 0x00)).toBe('openpgp');
    expect(pgp(0xc3, 0x0d, 0x05, 0x00)).toBe('openpgp');
    expect(pgp(0xc3, 0x0d, 0x06, 0x00)).toBe('openpgp');
    expect(pgp(0xc3, 0x0d, 0x07, 0x00)).toBe('unknown');
  });

  it('other tags are not a message\'s start', () => {
    expect(pgp(0xc2, 0x0d, 0x05, 0x00)).toBe('unknown');
    expect(pgp(0xc2, 0x0d, 0x03, 0x00)).toBe('unknown');
    expect(pgp(0xcb, 0x0d, 0x04, 0x00)).toBe('unknown');
  });

  it('new-format lengths: one octet below 192, two to 223, five after 255; a partial length is refused', () => {
    expect(pgp(0xc3, 191, 0x04, 0x00)).toBe('openpgp');
    expect(pgp(0xc3, 192, 0x00, 0x04)).toBe('openpgp');
    expect(pgp(0xc3, 223, 0x00, 0x04)).toBe('openpgp');
    expect(pgp(0xc3, 224, 0x04, 0x04, 0x04, 0x04, 0x04)).toBe('unknown');
    expect(pgp(0xc3, 254, 0x04, 0x04, 0x04, 0x04, 0x04)).toBe('unknown');
    expect(pgp(0xc3, 255, 0x00, 0x00, 0x01, 0x00, 0x04)).toBe('openpgp');
    expect(pgp(0xc3, 255, 0x04, 0x04, 0x04, 0x04, 0x00)).toBe('unknown');
  });

  it('old-format lengths: 1, 2 or 4 octets; an indeterminate length is refused', () => {
    expect(pgp(0x8c, 0x0d, 0x04, 0x00)).toBe('openpgp');
    expect(pgp(0x8d, 0x00, 0x0d, 0x04)).toBe('openpgp');
    expect(pgp(0x8e, 0x00, 0x00, 0x00, 0x0d, 0x04)).toBe('openpgp');
    expect(pgp(0x8f, 0x04, 0x04, 0x04, 0x04, 0x04)).toBe('unknown');
    expect(pgp(0x84, 0x0c, 0x03, 0x00)).toBe('openpgp');
  });

  it('the version past the bytes there are, or fewer than four bytes: not OpenPGP', () => {
    expect(pgp(0x8e, 0x00, 0x00, 0x00, 0x0d)).toBe('unknown');
    expect(pgp(0xc3, 255, 0x00, 0x00, 0x01, 0x00)).toBe('unknown');
    expect(pgp(0xc3, 0x0d, 0x04)).toBe('unknown');
  });

  it('a first byte without the high bit is no packet header', () => {
    expect(pgp(0x43, 0x0d, 0x04, 0x00)).toBe('unknown');
    expect(pgp(0x41, 0x0c, 0x03, 0x00)).toBe('unknown');
  });
});

describe('encryption headers: the kind, and how verify names it', () => {
  it('each header, and the words verify shows', async () => {
    expect(encryptionHeader(text(`Salted__${'\x01'.repeat(100)}`))).toEqual({ kind: 'openssl-enc', what: 'OpenSSL enc, "Salted__"' });
    expect(encryptionHeader(text(`age-encryption.org/v1\n-> X25519 abc\n${'x'.repeat(100)}`))).toEqual({ kind: 'age', what: 'age' });
    expect(encryptionHeader(text(`-----BEGIN AGE ENCRYPTED FILE-----\n${'YWdl'.repeat(40)}\n`))).toEqual({ kind: 'age', what: 'age' });
    expect(encryptionHeader(text(`-----BEGIN PGP MESSAGE-----\n\n${'hQEMA'.repeat(40)}\n`))).toEqual({ kind: 'openpgp', what: 'OpenPGP, armored' });
    expect(encryptionHeader(bytes(0xc3, 0x0d, 0x04, 0x09, 0x03, 0x08))).toEqual({ kind: 'openpgp', what: 'OpenPGP' });
    expect(encryptionHeader(text('age-encryption.org/v2\n'))).toBeUndefined();
    expect(encryptionHeader(text('-----BEGIN PGP SIGNATURE-----\n'))).toBeUndefined();
    expect(encryptionHeader(text('salted__'))).toBeUndefined();

    const armored = await verifyOf(text(`-----BEGIN PGP MESSAGE-----\n\n${'hQEMA'.repeat(400)}\n-----END PGP MESSAGE-----\n`));
    expect(armored).toMatchObject({ format: 'openpgp', verdict: 'encrypted' });
    expect(armored.reasons.join()).toContain('encrypted (OpenPGP, armored): size and hash only');
    const age = await verifyOf(text(`-----BEGIN AGE ENCRYPTED FILE-----\n${'YWdl'.repeat(400)}\n-----END AGE ENCRYPTED FILE-----\n`));
    expect(age).toMatchObject({ format: 'age', verdict: 'encrypted' });
  });
});

describe('a sha256sum list, from its first line', () => {
  const hex = '0123456789abcdefABCDEF0123456789abcdef0123456789abcdefABCDEF0123';
  it('64 hex digits, a space, a space or a star, a name', () => {
    expect(hex).toHaveLength(64);
    expect(kindOf(text(`${hex}  site.tar.gz\n${hex} *db.sql.gz\n`))).toBe('sha256sums');
    expect(kindOf(text(`${hex} *db.sql.gz\n`))).toBe('sha256sums');
    expect(kindOf(text(`${hex}  site.tar.gz`))).toBe('sha256sums');
    expect(kindOf(text(`${hex}  site.tar.gz\r\n`))).toBe('sha256sums');
  });

  it('not a list: 63 or 65 digits, another separator, no name, an indented or broken first line', () => {
    expect(kindOf(text(`${hex.slice(1)}  site.tar.gz\n`))).toBe('unknown');
    expect(kindOf(text(`${hex}a  site.tar.gz\n`))).toBe('unknown');
    expect(kindOf(text(`${hex} xsite.tar.gz\n`))).toBe('unknown');
    expect(kindOf(text(`${hex}  \n`))).toBe('unknown');
    expect(kindOf(text(`${hex}  \r\n`))).toBe('unknown');
    expect(kindOf(text(` ${hex}  site.tar.gz\n`))).toBe('unknown');
    expect(kindOf(text(`${hex}  site\r.tar.gz\n`))).toBe('unknown');
    expect(kindOf(text(`notes\n${hex}  site.tar.gz\n`))).toBe('unknown');
    expect(SHA256_LINE.exec(`${hex} *a b`)?.slice(1)).toEqual([hex, 'a b']);
  });

  it('inside a gzip it is never a list (a list is a file of its own)', () => {
    expect(kindOf(text(`${hex}  site.tar.gz\n`), { gzip: true })).toBe('unknown');
    expect(kindOf(text(`${hex}  site.tar.gz\n`), { gzip: false })).toBe('sha256sums');
  });

  it('only the first 4096 bytes are read: a first line longer than that is judged on them', () => {
    expect(kindOf(text(`${hex}  ${'n'.repeat(5000)}\r.tar\n`))).toBe('sha256sums');
  });
});

describe('SQL dumps', () => {
  it('the banner at the very start decides, whatever the data below holds', () => {
    expect(kindOf(text('-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)\n--\n-- PostgreSQL database dump\nSET statement_timeout = 0;\n'))).toBe('mysql');
    expect(kindOf(text('--\n-- PostgreSQL database dump\n--\n\nCOPY public.notes (body) FROM stdin;\n-- MySQL dump 10.13\n\\.\n'))).toBe('pg-plain');
    expect(kindOf(text('-- PostgreSQL database dump\n\nLOCK TABLES `x` WRITE;\n'))).toBe('pg-plain');
    // A banner without a version this reader knows still names the tool.
    expect(kindOf(text('-- MariaDB dump (unreleased build)\n'))).toBe('mysql');
  });

  it('a NUL in the first 4096 bytes: binary, not a dump; one further on is the data\'s business', () => {
    expect(kindOf(text('-- MySQL dump 10.13\n\0\n'))).toBe('unknown');
    expect(kindOf(text(`-- MySQL dump 10.13\n${'x'.repeat(5000)}\0\n`))).toBe('mysql');
  });

  it('without the banner at the start: a banner line further down', () => {
    expect(kindOf(text('/* a comment */\n-- MariaDB dump 10.19-11.4.2-MariaDB, for debian-linux-gnu\n'))).toBe('mysql');
    expect(kindOf(text('/* a comment */\n-- MariaDB dump of the shop\n'))).toBe('unknown');
    expect(kindOf(text('/* a comment */ -- MySQL dump 10.13\n'))).toBe('unknown');
    expect(kindOf(text('/* a comment */\n-- PostgreSQL database dump\n'))).toBe('pg-plain');
    expect(kindOf(text('/* a comment */\n-- PostgreSQL database cluster dump\n'))).toBe('pg-plain');
    expect(kindOf(text('/* a comment */ -- PostgreSQL database dump\n'))).toBe('unknown');
  });

  it('pg_dump\'s statements: \\restrict with its key, set_config of search_path, COPY FROM stdin, its SETs', () => {
    expect(kindOf(text('\\restrict AbZ09az\nCREATE TABLE t (a int);\n'))).toBe('pg-plain');
    expect(kindOf(text('\\restrict AbZ09az\r\nCREATE TABLE t (a int);\r\n'))).toBe('pg-plain');
    expect(kindOf(text('\\restrict AbZ09az'))).toBe('pg-plain');
    expect(kindOf(text('\\restrict AbZ09az \t\nCREATE TABLE t (a int);\n'))).toBe('pg-plain');
    expect(kindOf(text('\\restrict AbZ 09az\n'))).toBe('unknown');
    expect(kindOf(text('\\restrict \n'))).toBe('unknown');
    expect(kindOf(text(' \\restrict AbZ09az\n'))).toBe('unknown');
    expect(kindOf(text("SELECT pg_catalog.set_config('search_path', '', false);\n"))).toBe('pg-plain');
    expect(kindOf(text("  SELECT pg_catalog.set_config('search_path', '', false);\n"))).toBe('unknown');
    expect(kindOf(text('COPY public.notes (id, body) FROM stdin;\n1\thello\n\\.\n'))).toBe('pg-plain');
    expect(kindOf(text('  COPY public.notes (id, body) FROM stdin;\n'))).toBe('unknown');
    expect(kindOf(text('COPY public.notes (id, body) FROM stdin; -- no\n'))).toBe('unknown');
    for (const set of ['statement_timeout', 'client_encoding', 'standard_conforming_strings']) {
      expect(kindOf(text(`SET ${set} = 0;\n`)), set).toBe('pg-plain');
      expect(kindOf(text(` SET ${set} = 0;\n`)), set).toBe('unknown');
    }
    expect(kindOf(text('SET lock_timeout = 0;\n'))).toBe('unknown');
  });

  it('mysqldump\'s statements: a versioned comment\'s SET, LOCK TABLES, CREATE TABLE with backquotes', () => {
    expect(kindOf(text('/*!40101 SET NAMES utf8mb4 */;\n'))).toBe('mysql');
    expect(kindOf(text(' /*!40101 SET NAMES utf8mb4 */;\n'))).toBe('unknown');
    expect(kindOf(text('/*!4010 SET NAMES utf8mb4 */;\n'))).toBe('unknown');
    expect(kindOf(text('LOCK TABLES `users` WRITE;\n'))).toBe('mysql');
    expect(kindOf(text(' LOCK TABLES `users` WRITE;\n'))).toBe('unknown');
    expect(kindOf(text('CREATE TABLE `users` (\n  `id` int\n);\n'))).toBe('mysql');
    expect(kindOf(text(' CREATE TABLE `users` (\n'))).toBe('unknown');
    expect(kindOf(text('CREATE TABLE `` (\n'))).toBe('unknown');
    expect(kindOf(text('CREATE TABLE users (\n'))).toBe('unknown');
  });
});

describe('the banner verify asks the end marker by', () => {
  const mysqlBody = 'CREATE TABLE `t` (\n  `id` int\n);\nINSERT INTO `t` VALUES (1),(2);\n';
  const pgBody = 'SET statement_timeout = 0;\nCREATE TABLE public.t (id integer);\nCOPY public.t (id) FROM stdin;\n1\n2\n\\.\n\n';

  it('mysqldump: with its banner, whole when "-- Dump completed" ends it, cut short without', async () => {
    const dump = `-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)\n--\n${mysqlBody}`;
    expect(await verifyOf(text(`${dump}-- Dump completed on 2026-01-01  0:00:00\n`))).toMatchObject({ format: 'mysqldump', verdict: 'verified' });
    const cut = await verifyOf(text(dump));
    expect(cut).toMatchObject({ format: 'mysqldump', verdict: 'failed' });
    expect(cut.reasons.join()).toContain('mysqldump: no end marker ("-- Dump completed"): the dump did not finish');
  });

  it('MariaDB\'s sandbox line before the banner, with or without its trailing space, LF or CRLF', async () => {
    for (const sandbox of ['/*M!999999\\- enable the sandbox mode */ \n', '/*M!999999\\- enable the sandbox mode */\n', '/*M!999999\\- enable the sandbox mode */\r\n', '/*M!999999\\- enable the sandbox mode */ \r\n']) {
      const cut = await verifyOf(text(`${sandbox}-- MariaDB dump 10.19-11.4.2-MariaDB, for debian-linux-gnu (x86_64)\n--\n${mysqlBody}`));
      expect(cut, JSON.stringify(sandbox)).toMatchObject({ format: 'mysqldump', verdict: 'failed' });
    }
  });

  it('a mysqldump whose banner is not at the start: no end marker asked', async () => {
    const r = await verifyOf(text(`/* copied */\n-- MySQL dump 10.13  Distrib 8.0.36\n${mysqlBody}`));
    expect(r).toMatchObject({ format: 'mysqldump', verdict: 'not-inspected' });
    expect(r.reasons.join()).toContain('mysqldump: no banner, so no end marker to check');
  });

  it('pg_dump: its banner, after a "--" line or not, LF or CRLF; whole only with "-- PostgreSQL database dump complete"', async () => {
    for (const banner of ['--\n-- PostgreSQL database dump\n--\n\n', '-- PostgreSQL database dump\n\n', '--\r\n-- PostgreSQL database dump\r\n--\r\n\r\n', '-- \n-- PostgreSQL database dump\n']) {
      const cut = await verifyOf(text(`${banner}${pgBody}`));
      expect(cut, JSON.stringify(banner)).toMatchObject({ format: 'pg_dump', verdict: 'failed' });
      expect(cut.reasons.join()).toContain('pg_dump: no end marker ("-- PostgreSQL database dump complete")');
      const whole = await verifyOf(text(`${banner}${pgBody}--\n-- PostgreSQL database dump complete\n--\n\n`));
      expect(whole, JSON.stringify(banner)).toMatchObject({ format: 'pg_dump', verdict: 'verified' });
    }
  });

  it('a pg_dump whose banner is not at the start: no end marker asked', async () => {
    const r = await verifyOf(text(`/* copied */\n-- PostgreSQL database dump\n${pgBody}`));
    expect(r).toMatchObject({ format: 'pg_dump', verdict: 'not-inspected' });
  });
});
