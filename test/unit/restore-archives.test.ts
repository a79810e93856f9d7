// The non-SQL restore sinks in-process, fed as restore-test feeds them: by the
// content stage's one walk of the archive (ContentSink.entries) or its one
// reading of a mongodump archive (ContentSink.documents). Links that lead
// outside an extracted archive are refused (directly, through an earlier link,
// or by a chain), the counts are checked against the listing, and the
// mongodump archive reader catches a damaged document, a wrong CRC and a cut archive.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pack } from 'tar-stream';
import { Crc64 } from '../../src/util/crc64.js';
import { FileArchiveSink, unsafeEntryName } from '../../src/restore/files.js';
import { MongoArchiveSink } from '../../src/restore/mongo.js';
import { mongodumpArchive } from '../../src/emulator/mongo-archive.js';
import { createRng } from '../../src/emulator/util.js';
import type { RestoreOptions } from '../../src/restore/types.js';
import { DEFAULT_BOUNDS, type Bounds } from '../../src/pipeline/bounds.js';
import { ContentStage } from '../../src/pipeline/content/stage.js';
import { MongoCheck } from '../../src/pipeline/content/mongo.js';
import type { ContentSink } from '../../src/pipeline/types.js';
import type { FileRestore } from '../../src/restore/types.js';

/** The file archive sink as the content stage sees it (DispatchSink does this in restore-test). */
function contentSink(sink: FileArchiveSink): ContentSink<FileRestore> {
  return {
    open: async () => {},
    write: () => sink.write(),
    restart: () => sink.restart(),
    end: () => sink.end(),
    abort: () => sink.abort(),
    entries: sink.entries,
  };
}

/** A content stage (the one walk of the archive, within `bounds`) that hands the members to `sink`. */
function stageFor(sink: FileArchiveSink, bounds?: Bounds): ContentStage {
  return new ContentStage(bounds ? { bounds } : {}, [contentSink(sink)]);
}

/** `bytes` in pieces of `piece` through the stage into `sink`; the stage and the sink end side by side, as in the pipeline. */
async function walked(sink: FileArchiveSink, bytes: Buffer, piece: number, bounds?: Bounds, stage = stageFor(sink, bounds)) {
  for (let at = 0; at < bytes.length; at += piece) await stage.write(bytes.subarray(at, at + piece));
  await stage.drain();
  const [finding, restored] = await Promise.all([stage.end(), sink.end()]);
  return { finding, restored };
}

type Entry = { name: string; type?: 'file' | 'symlink' | 'link' | 'directory'; linkname?: string; data?: string };

async function tarOf(entries: Entry[]): Promise<Buffer> {
  const p = pack();
  for (const e of entries) {
    if (e.type === 'symlink' || e.type === 'link') p.entry({ name: e.name, type: e.type, linkname: e.linkname });
    else if (e.type === 'directory') p.entry({ name: e.name, type: 'directory' });
    else p.entry({ name: e.name }, e.data ?? 'x\n');
  }
  p.finalize();
  const chunks: Buffer[] = [];
  for await (const c of p as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

let tmp: string;
let saved: string | undefined;
beforeEach(() => {
  // A folder inside a folder: what escapes lands in the outer one.
  tmp = path.join(mkdtempSync(path.join(tmpdir(), 'backupctl-unit-')), 'tmp');
  mkdirSync(tmp);
  saved = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
});
afterEach(() => {
  if (saved === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = saved;
  rmSync(path.dirname(tmp), { recursive: true, force: true });
});

const options = (o: Partial<RestoreOptions> = {}): RestoreOptions => ({
  engine: 'auto',
  asserts: [],
  execTimeoutMs: 5_000,
  keep: false,
  allowEmpty: false,
  signal: new AbortController().signal,
  ...o,
});

async function extract(entries: Entry[], o: Partial<RestoreOptions> = {}) {
  const sink = new FileArchiveSink('tar', options(o));
  // In odd pieces, as the network hands them.
  const { restored } = await walked(sink, await tarOf(entries), 700, o.bounds);
  // The pipeline then judges the bytes; they passed here, so --exec runs (settle).
  return sink.settle(restored, true);
}

describe('file archives', () => {
  it('names: absolute and `..` paths are unsafe, ordinary ones are not', () => {
    expect(unsafeEntryName('/etc/passwd')).toBe('an absolute path');
    expect(unsafeEntryName('a/../../b')).toMatch(/\.\./);
    expect(unsafeEntryName('..\\b')).toMatch(/\.\./);
    expect(unsafeEntryName('a/b..c/d')).toBeUndefined();
    expect(unsafeEntryName('./a/b')).toBeUndefined();
  });

  it('a plain archive: files and bytes counted, links inside kept, the folder removed', async () => {
    const r = await extract([
      { name: 'site/', type: 'directory' },
      { name: 'site/index.html', data: '<h1>hi</h1>\n' },
      { name: 'site/current', type: 'symlink', linkname: 'index.html' },
      { name: 'site/copy.html', type: 'link', linkname: 'site/index.html' },
    ], { exec: 'test -s site/index.html && test -L site/current && test "$(cat site/copy.html)" = "<h1>hi</h1>"' });
    expect(r.failure).toBeNull();
    expect(r).toMatchObject({ verdict: 'extracted', files: 1, bytes: 12, exec: { exit_code: 0 } });
    expect(readdirSync(tmp)).toEqual([]);
  });

  it.each<[string, Entry[], RegExp]>([
    ['an absolute symlink', [{ name: 'etc', type: 'symlink', linkname: '/etc' }], /points to an absolute path/],
    ['a symlink up and out', [{ name: 'a/up', type: 'symlink', linkname: '../../..' }], /points outside the folder/],
    ['a file written through a link to outside', [{ name: 'out', type: 'symlink', linkname: '..' }, { name: 'out/escaped.txt' }], /points outside/],
    ['a link through an earlier link', [{ name: 'd', type: 'symlink', linkname: '.' }, { name: 'd/d/e', type: 'symlink', linkname: '../..' }], /outside the folder/],
    ['a hard link to outside', [{ name: 'h', type: 'link', linkname: '../../etc/passwd' }], /hard link .* outside the folder/],
    ['a `..` file', [{ name: 'ok.txt' }, { name: 'a/../../escaped.txt' }], /refused the entry "a\/\.\.\/\.\.\/escaped\.txt"/],
    // `..` taken after the links (x is the folder itself), not from the text: three levels up, dangling.
    ['a dangling chain through a link to the folder', [{ name: 'ok.txt' }, { name: 'x', type: 'symlink', linkname: '.' }, { name: 'report.txt', type: 'symlink', linkname: 'x/x/x/../../../escaped.txt' }], /^refused the link "report.txt" -> "x\/x\/x\/\.\.\/\.\.\/\.\.\/escaped\.txt": it points outside the folder$/],
    // Harmless when made (d does not exist yet): only the final walk over every link refuses it.
    ['a two-entry chain made in the other order', [{ name: 'ok.txt' }, { name: 'a', type: 'symlink', linkname: 'd/..' }, { name: 'd', type: 'symlink', linkname: '.' }], /^refused the link "a" -> "d\/\.\.": it points outside the folder$/],
    // `sub` is the folder itself, so `sub/l -> ..` is the folder's parent: refused when made, not only at the end.
    ['a link made through a link to the folder', [{ name: 'ok.txt' }, { name: 'sub', type: 'symlink', linkname: '.' }, { name: 'sub/l', type: 'symlink', linkname: '..' }, { name: 'z.txt' }], /^refused the link "sub\/l" -> "\.\.": it points outside the folder$/],
    ['a link loop', [{ name: 'ok.txt' }, { name: 'p', type: 'symlink', linkname: 'q' }, { name: 'q', type: 'symlink', linkname: 'p' }], /more than 40 links in a row/],
  ])('%s is refused and nothing lands outside', async (_what, entries, message) => {
    const r = await extract(entries);
    expect(r.verdict).toBe('failed');
    expect(r.failure?.message).toMatch(message);
    expect(readdirSync(tmp)).toEqual([]);
    expect(readdirSync(path.dirname(tmp))).toEqual(['tmp']);
  });

  it('an entry larger than the free space of the folder\'s file system is refused before a byte of it is written', async () => {
    const { tarHeader } = await import('../../src/emulator/archive-formats.js');
    // 1 PiB, in the base-256 size field tar uses past 8 GiB; the byte bound is raised past it, so the disk decides.
    const header = tarHeader({ name: 'huge.img', data: Buffer.alloc(0) });
    header.fill(0, 124, 136);
    header[124] = 0x80;
    header[129] = 0x04; // 2 ** 50, big-endian, ending at byte 135
    header.write('        ', 148, 'ascii');
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
    const sink = new FileArchiveSink('tar', options({ bounds: { ...DEFAULT_BOUNDS, maxExtractBytes: 2 ** 60 } }));
    const first = await tarOf([{ name: 'ok.txt' }]);
    const { restored: r } = await walked(sink, Buffer.concat([first.subarray(0, 1024), header, Buffer.alloc(64 * 1024)]), 16 * 1024, { ...DEFAULT_BOUNDS, maxExtractBytes: 2 ** 60 });
    expect(r.failure?.message).toMatch(/^refused the entry "huge\.img": its 1024 TiB would leave less than [\d.]+ \w+ free on the file system of .* \([\d.]+ \w+ free\); give TMPDIR a folder with more room$/);
    expect(r.files).toBe(1);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('the entry and byte bounds of an extraction, each named', async () => {
    const entries = await extract([{ name: 'a' }, { name: 'b' }, { name: 'c' }], { bounds: { ...DEFAULT_BOUNDS, maxExtractEntries: 2 } });
    expect(entries.failure?.message).toBe('the archive holds more than 2 entries: refused; raise the bound with BACKUPCTL_RESTORE_MAX_ENTRIES');
    const bytes = await extract([{ name: 'a', data: 'x'.repeat(600) }, { name: 'b', data: 'y'.repeat(600) }], { bounds: { ...DEFAULT_BOUNDS, maxExtractBytes: 1000 } });
    expect(bytes.failure?.message).toBe("the archive's files extract to more than 1000 bytes: refused; raise the bound with BACKUPCTL_RESTORE_MAX_BYTES");
    expect(bytes.files).toBe(1);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('an archive cut in the middle of an entry fails', async () => {
    const sink = new FileArchiveSink('tar', options());
    const bytes = await tarOf([{ name: 'a.txt', data: 'y'.repeat(5000) }]);
    const { restored: r, finding } = await walked(sink, bytes.subarray(0, 2048), 2048);
    expect(r.verdict).toBe('failed');
    // The walk's own reason: the restore reads no header itself.
    expect(r.failure?.message).toBe(finding.reason);
    expect(r.failure?.message).toMatch(/^tar: truncated inside entry 1$/);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('an empty archive fails unless --allow-empty', async () => {
    expect((await extract([{ name: 'only/', type: 'directory' }])).failure?.message).toMatch(/holds no file/);
    expect((await extract([{ name: 'only/', type: 'directory' }], { allowEmpty: true })).verdict).toBe('extracted');
  });

  it('--exec never sees the API token, the --into URL or a database password: its few variables come from the environment given', async () => {
    const env = { PATH: '/usr/bin:/bin', HOME: '/home/x', LC_ALL: 'C', BACKUPCTL_TOKEN: 'tok-secret', BACKUPCTL_RESTORE_URL: 'postgres://u:pw@h/', PGPASSWORD: 'pg', MYSQL_PWD: 'my', AWS_SECRET_ACCESS_KEY: 'k' };
    const r = await extract([{ name: 'a.txt' }], {
      env,
      exec: 'test -z "$BACKUPCTL_TOKEN$BACKUPCTL_RESTORE_URL$PGPASSWORD$MYSQL_PWD$AWS_SECRET_ACCESS_KEY" && test "$PATH" = /usr/bin:/bin && test "$HOME" = /home/x && test "$LC_ALL" = C',
    });
    expect(r.exec?.exit_code).toBe(0);
  });

  it('--exec does not run when the pipeline judged the bytes bad (settle with passed = false); the folder goes all the same', async () => {
    const sink = new FileArchiveSink('tar', options({ exec: 'exit 0' }));
    const { restored: ended } = await walked(sink, await tarOf([{ name: 'a.txt' }]), 4096);
    // Extracted, but --exec waits for the verdict on the bytes.
    expect(ended).toMatchObject({ verdict: 'extracted', exec: null });
    expect(readdirSync(tmp)).toHaveLength(1);
    const r = await sink.settle(ended, false);
    expect(r.exec).toBeNull();
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('--exec is stopped at its time limit', async () => {
    const r = await extract([{ name: 'a.txt' }], { exec: 'sleep 5', execTimeoutMs: 200 });
    expect(r.failure?.message).toMatch(/--exec timed out/);
    expect(r.exec?.timed_out).toBe(true);
  });

  it('restart: the transfer starts over, the first attempt leaves nothing behind', async () => {
    const sink = new FileArchiveSink('tar', options());
    const bytes = await tarOf([{ name: 'a.txt', data: 'a'.repeat(3000) }, { name: 'b.txt', data: 'b'.repeat(3000) }]);
    const stage = stageFor(sink);
    await stage.write(bytes.subarray(0, 2000));
    await stage.restart();
    const { restored: r } = await walked(sink, bytes, 900, undefined, stage);
    expect(r).toMatchObject({ verdict: 'extracted', files: 2, bytes: 6000, failure: null });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('an abort that comes while the folder is being made still removes it', async () => {
    const sink = new FileArchiveSink('tar', options());
    const bytes = await tarOf([{ name: 'a.txt', data: 'z'.repeat(100_000) }]);
    const writing = stageFor(sink).write(bytes.subarray(0, 50_000));
    await sink.abort();
    await writing;
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('abort removes the folder at once', async () => {
    const sink = new FileArchiveSink('tar', options());
    const bytes = await tarOf([{ name: 'a.txt', data: 'z'.repeat(100_000) }]);
    await stageFor(sink).write(bytes.subarray(0, 50_000));
    // The folder is made as the walk reaches the first member (asynchronously, however loaded the machine).
    for (let i = 0; i < 250 && readdirSync(tmp).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(readdirSync(tmp)).toHaveLength(1);
    await sink.abort();
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe('mongodump archives', () => {
  it('CRC-64/ECMA as Go computes it (the check value of "123456789")', () => {
    expect(BigInt.asUintN(64, new Crc64().update(Buffer.from('123456789')).signed()).toString(16)).toBe('995dc9bbdf1939fa');
  });

  const archive = () => mongodumpArchive(createRng(7), 'shop', 20_000);

  /** The bytes read by the content stage's check (the one reader), its documents handed to the sink. */
  async function parse(bytes: Buffer, o: { allowEmpty?: boolean } = {}) {
    const sink = await MongoArchiveSink.create(o);
    const check = new MongoCheck([sink.documents]);
    for (let at = 0; at < bytes.length; at += 333) {
      await check.write(bytes.subarray(at, at + 333));
      await sink.write();
    }
    const [, r] = await Promise.all([check.end(), sink.end()]);
    return r;
  }

  it('every document counted per collection', async () => {
    const r = await parse(archive());
    expect(r.failure).toBeNull();
    expect(r.verdict).toBe('structure-checked');
    expect(r.tables.map((t) => t.table)).toEqual(['shop.users', 'shop.sessions', 'shop.pageviews', 'shop.orders']);
    expect(r.rows).toBeGreaterThan(40);
  });

  it('a changed byte inside a document: the CRC (or the document) fails', async () => {
    const bytes = archive();
    bytes[Math.floor(bytes.length / 2)] ^= 0x01;
    const r = await parse(bytes);
    expect(r.verdict).toBe('failed');
    expect(r.failure?.message).toMatch(/^mongodump archive: /);
  });

  it('a cut archive fails', async () => {
    const bytes = archive();
    const r = await parse(bytes.subarray(0, bytes.length - 100));
    expect(r.verdict).toBe('failed');
  });

  it('an archive of no collection fails unless --allow-empty', async () => {
    const { BSON } = await import('bson');
    const empty = Buffer.concat([Buffer.from([0x6d, 0xe2, 0x99, 0x81]), Buffer.from(BSON.serialize({ version: '0.1', server_version: '7.0.14' })), Buffer.from([0xff, 0xff, 0xff, 0xff])]);
    expect((await parse(empty)).failure?.message).toMatch(/holds no collection/);
    expect((await parse(empty, { allowEmpty: true })).verdict).toBe('structure-checked');
  });

  it('not an archive: no magic', async () => {
    expect((await parse(Buffer.from('hello world, not bson'))).failure?.message).toMatch(/no magic number/);
  });

  it('the generator is deterministic', () => {
    expect(archive().equals(archive())).toBe(true);
    expect(existsSync(tmp)).toBe(true);
  });
});

describe('zip archives: bombs', () => {
  it("entries that share stored bytes are refused from the central directory, before a byte is inflated (as verify's check)", async () => {
    const { hostileArchive } = await import('../../src/emulator/hostile-archives.js');
    const sink = new FileArchiveSink('zip', options());
    const started = Date.now();
    const { restored: r } = await walked(sink, hostileArchive('zip-bomb'), 512 * 1024);
    // The walk's refusal (the restore opens no zip of its own): no member was handed over.
    expect(r.failure?.message).toMatch(/^zip: entries "bomb\/\d+\.bin" and "bomb\/\d+\.bin" overlap \(share stored bytes\): refused as a decompression bomb$/);
    expect(r).toMatchObject({ files: 0, bytes: 0 });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(readdirSync(tmp)).toEqual([]);
  }, 60_000);

  it("a zip's declared sizes past the byte bound are refused before anything is written", async () => {
    const { hostileArchive } = await import('../../src/emulator/hostile-archives.js');
    const bounds = { ...DEFAULT_BOUNDS, maxExtractBytes: 100 * 1024 * 1024 };
    const sink = new FileArchiveSink('zip', options({ bounds }));
    const { restored: r } = await walked(sink, hostileArchive('zip-zeros'), 512 * 1024, bounds);
    expect(r.failure?.message).toBe("the archive's files extract to more than 104857600 bytes: refused; raise the bound with BACKUPCTL_RESTORE_MAX_BYTES");
    expect(r).toMatchObject({ files: 0, bytes: 0 });
    expect(readdirSync(tmp)).toEqual([]);
    // (The check goes on inflating its 2 GiB for verify's CRCs: the time is the check's.)
  }, 180_000);
});

describe('zip archives', () => {
  async function unzip(entries: Array<{ name: string; data: string }>, o: Partial<RestoreOptions> = {}) {
    const { zipArchive } = await import('../../src/emulator/archive-formats.js');
    const bytes = zipArchive(entries.map((e) => ({ name: e.name, data: Buffer.from(e.data), method: 8 as const })));
    const sink = new FileArchiveSink('zip', options(o));
    const { restored } = await walked(sink, bytes, 500, o.bounds);
    return sink.settle(restored, true);
  }

  it('extracted and counted against the central directory', async () => {
    const r = await unzip([{ name: 'site/index.html', data: '<h1>hi</h1>' }, { name: 'site/a.css', data: 'body{}' }], { exec: 'test -s site/index.html' });
    expect(r).toMatchObject({ verdict: 'extracted', files: 2, bytes: 17, failure: null, exec: { exit_code: 0 } });
    expect(readdirSync(tmp)).toEqual([]);
  });

  it.each(['../evil.txt', '/etc/evil.txt', 'a/../../evil.txt'])('%s is refused, nothing outside', async (name) => {
    const r = await unzip([{ name: 'ok.txt', data: 'ok' }, { name, data: 'evil' }]);
    expect(r.verdict).toBe('failed');
    expect(r.failure?.message).toMatch(/relative path|absolute path|"\.\."/);
    expect(readdirSync(tmp)).toEqual([]);
    expect(readdirSync(path.dirname(tmp))).toEqual(['tmp']);
  });
});

describe('the dispatch: the kind from the content stage, the bytes inflated once on the way', () => {
  const { gzipSync } = require('node:zlib') as typeof import('node:zlib');

  /** The raw bytes through the pipeline's content stage (inflate once, sniff once) into a DispatchSink. */
  async function through(bytes: Buffer, o: Partial<RestoreOptions> & { encrypted?: boolean } = {}, restartAfter?: number) {
    const { DispatchSink } = await import('../../src/restore/dispatch.js');
    const { ContentStage } = await import('../../src/pipeline/content/stage.js');
    const fatal: unknown[] = [];
    const sink = new DispatchSink({ ...options(o), encrypted: o.encrypted ?? false, onFatal: (e) => fatal.push(e) });
    const stage = new ContentStage({ encrypted: o.encrypted ?? false, ...(o.bounds ? { bounds: o.bounds } : {}) }, [sink]);
    if (restartAfter !== undefined) {
      // The transfer starts over (the server ignored Range): what was written is dropped.
      await stage.write(bytes.subarray(0, restartAfter));
      await stage.restart();
    }
    for (let at = 0; at < bytes.length; at += 1000) await stage.write(bytes.subarray(at, at + 1000));
    await stage.drain();
    const finding = await stage.end();
    try {
      return { result: await sink.end(), finding, fatal };
    } catch (err) {
      return { error: err as Error, finding, fatal };
    }
  }

  it('a gzipped tar is extracted; a restart midway starts afresh', async () => {
    const tar = gzipSync(await tarOf([{ name: 'a/b.txt', data: 'hello\n' }]));
    expect((await through(tar)).result).toMatchObject({ kind: 'tar', verdict: 'extracted', files: 1 });
    expect((await through(tar, {}, 30)).result).toMatchObject({ kind: 'tar', verdict: 'extracted', files: 1 });
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('a plain (not gzipped) mongodump archive is parsed', async () => {
    const { result } = await through(mongodumpArchive(createRng(3), 'db', 8000));
    expect(result).toMatchObject({ kind: 'mongo-archive', verdict: 'structure-checked' });
  });

  it('a damaged gzip fails with the gzip error', async () => {
    const gz = gzipSync(await tarOf([{ name: 'a.txt', data: 'x'.repeat(20000) }]));
    gz[gz.length - 6] ^= 0xff;
    // The content stage's gunzip (the only one) fails it; restore-test then fails the file with that reason (run.ts).
    const { finding } = await through(gz);
    expect(finding).toMatchObject({ format: 'gzip', verdict: 'failed' });
    expect(finding.reason).toMatch(/gzip: (CRC-32|length) mismatch/);
  });

  it('unknown bytes and encrypted backups are not restorable, said plainly', async () => {
    expect((await through(Buffer.from('just some text\n'.repeat(400)))).result).toMatchObject({ kind: 'unknown', verdict: 'not-restorable' });
    expect((await through(gzipSync(Buffer.from('Salted__xxxxxxxx')), { encrypted: true })).result?.warnings[0]).toMatch(/^encrypted/);
  });

  it("a gzip bomb stops at verify's ratio bound in the one gunzip of the content stage, whatever it holds (the engine gets no more)", async () => {
    const { hostileArchive } = await import('../../src/emulator/hostile-archives.js');
    // 4 GiB of zeros in about 4 MB: refused once past 64 MiB at 200 to 1, long before the end.
    const { result, finding } = await through(hostileArchive('gzip-zeros'));
    expect(finding.verdict).toBe('failed');
    expect(finding.reason).toMatch(/^gzip: expands more than 200 times its size \(\d+ bytes gave \d+ and more\): refused as a decompression bomb; raise the bound with BACKUPCTL_VERIFY_MAX_RATIO$/);
    expect(result?.verdict).not.toBe('restored');
    // The bound given (from the environment, by the command) is the one applied.
    const { finding: raised } = await through(hostileArchive('gzip-zeros').subarray(0, 200_000), { bounds: { ...DEFAULT_BOUNDS, maxGzipRatio: 5 } });
    expect(raised.reason).toMatch(/^gzip: expands more than 5 times its size/);
  }, 60_000);

  it('--assert on a tar stops the run with a usage error', async () => {
    const { error, fatal } = await through(await tarOf([{ name: 'a.txt' }]), { asserts: ['select 1'] });
    expect(error?.message).toMatch(/^--assert runs SQL in a restored database, but this backup holds a tar archive/);
    expect(fatal).toHaveLength(1);
  });

  it('a SQL dump reaches the SQL engines: a gzipped pg_dump loads into PGlite, every row counted', async () => {
    const dump = [
      '--', '-- PostgreSQL database dump', '--', '', "SET client_encoding = 'UTF8';", '',
      'CREATE TABLE public.t (id integer NOT NULL, note text);', '',
      'COPY public.t (id, note) FROM stdin;', '1\tone', '2\ttwo', '3\tthree', '\\.', '',
      '--', '-- PostgreSQL database dump complete', '--', '',
    ].join('\n');
    const { result, error } = await through(gzipSync(Buffer.from(dump)), { engine: 'embedded' });
    expect(error).toBeUndefined();
    expect(result).toMatchObject({ kind: 'pg-plain', verdict: 'restored', engine: { name: 'postgres', runs: 'embedded' }, tables: [{ table: 'public.t', expected: 3, restored: 3 }], rows: 3 });
  }, 60_000);

  it('a SQL dump no engine can restore stops the run with exit 15', async () => {
    const mysql = Buffer.from('-- MariaDB dump 10.19  Distrib 10.11.6-MariaDB\n\nCREATE TABLE `t` (`id` int);\n');
    const { error, fatal } = await through(mysql, { engine: 'embedded' });
    expect((error as { exitCode?: number }).exitCode).toBe(15);
    expect(error?.message).toMatch(/no engine to restore a MySQL\/MariaDB dump/);
    expect(fatal).toHaveLength(1);
  });
});

describe("the walk waits for a member's reader (backpressure: restore-test writes members to disk as they come)", () => {
  it.each(['tar', 'zip'] as const)('%s: no piece is handed on before the reader took the one before it; every byte arrives', async (format) => {
    const { zipArchive } = await import('../../src/emulator/archive-formats.js');
    const text = 'backupctl '.repeat(300_000);
    const bytes = format === 'tar' ? await tarOf([{ name: 'big.txt', data: text }]) : zipArchive([{ name: 'big.txt', data: Buffer.from(text), method: 8 }]);
    let outstanding = 0;
    let most = 0;
    let pieces = 0;
    let seen = 0;
    const sink: ContentSink<undefined> = {
      open: async () => {},
      write: async () => {},
      restart: () => {},
      end: async () => undefined,
      abort: async () => {},
      entries: {
        begin: () => {},
        close: () => {},
        entry: () => ({
          data: (piece) => {
            outstanding++;
            most = Math.max(most, outstanding);
            pieces++;
            seen += piece.length;
            // A slow disk: the piece is taken a moment later.
            return new Promise<void>((resolve) => setTimeout(() => {
              outstanding--;
              resolve();
            }, 1));
          },
          end: async () => {},
        }),
      },
    };
    const stage = new ContentStage({}, [sink]);
    for (let at = 0; at < bytes.length; at += 64 * 1024) await stage.write(bytes.subarray(at, at + 64 * 1024));
    await stage.drain();
    expect((await stage.end()).verdict).toBe('verified');
    expect(pieces).toBeGreaterThan(3);
    expect(seen).toBe(text.length);
    expect(most).toBe(1);
  });
});
