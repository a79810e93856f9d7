// A SQL dump's statements are read ONCE per file (issue 31 §1 and its speed goal): the
// content stage decodes the dump and runs one statement reader (src/pipeline/sql-reader.ts)
// for every sink that asks (ContentSink.statements): the catalog's row counts and
// restore-test's SQL engine. The readers' push() is counted here: every byte of the dump
// goes through the stage's reader once, whether one sink listens or two. Before, the fingerprint and
// the engine each decoded and parsed the whole dump (twice the characters). The stage's reader
// (SqlBytesReader) is counted in bytes; the text reader anyone else would parse with, in characters.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { memoryTransfer } from '../helpers/transfer.js';

const reads = vi.hoisted(() => ({ bytes: 0, chars: 0, inner: false }));
// The content stage's reader (bytes in): every byte it is given is counted.
vi.mock('../../src/pipeline/sql-bytes.js', async (importOriginal) => {
  const m = await importOriginal<typeof import('../../src/pipeline/sql-bytes.js')>();
  class CountedBytesReader extends m.SqlBytesReader {
    constructor(dialect: ConstructorParameters<typeof m.SqlBytesReader>[0]) {
      // The text reader it makes for itself (the text between COPY blocks) is its own, not a second parse.
      reads.inner = true;
      try {
        super(dialect);
      } finally {
        reads.inner = false;
      }
    }
    override push(chunk: Buffer) {
      reads.bytes += chunk.length;
      return super.push(chunk);
    }
  }
  return { ...m, SqlBytesReader: CountedBytesReader };
});
// The text reader anyone else would parse with: what a second parse would read.
vi.mock('../../src/pipeline/sql-reader.js', async (importOriginal) => {
  const m = await importOriginal<typeof import('../../src/pipeline/sql-reader.js')>();
  class CountedReader extends m.SqlReader {
    private readonly ownedByBytesReader = reads.inner;
    override push(text: string) {
      if (!this.ownedByBytesReader) reads.chars += text.length;
      return super.push(text);
    }
  }
  return { ...m, SqlReader: CountedReader };
});

const { readBackups } = await import('../../src/pipeline/index.js');
const { FingerprintSink } = await import('../../src/catalog/fingerprint.js');
const { DispatchSink } = await import('../../src/restore/dispatch.js');
type SqlEvent = import('../../src/pipeline/sql-events.js').SqlEvent;
type ContentSink = import('../../src/pipeline/types.js').ContentSink;
type FileFingerprint = import('../../src/state/catalog.js').FileFingerprint;
type FileRestore = import('../../src/restore/types.js').FileRestore;

const FIXTURES = path.resolve(import.meta.dirname, '../../src/emulator/fixtures/restore');
const manifest = JSON.parse(readFileSync(path.join(FIXTURES, 'manifest.json'), 'utf8')) as { files: Record<string, { tables?: Record<string, number> }> };

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'backupctl-one-reader-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A content sink that only listens to the statements, and keeps them. */
function listener(): ContentSink & { got: SqlEvent[] } {
  const got: SqlEvent[] = [];
  return {
    got,
    statements: { events: (batch) => void got.push(...batch) },
    open: async () => {},
    write: async () => {},
    restart: () => {},
    end: async () => got,
    abort: async () => {},
  };
}

async function read(bytes: Buffer, sinks: ContentSink[], bounds?: { maxStatement: number }) {
  const backup = { id: 'b1', created_at: null, status: 'completed', encrypted: false, files: [{ name: 'dump.sql.gz', url: 'u', size: bytes.length }] };
  const [[out]] = await readBackups([backup], {
    parallel: 1,
    signal: new AbortController().signal,
    now: () => new Date(0),
    transfer: memoryTransfer(bytes),
    sinks: () => sinks,
    ...(bounds ? { inspect: { bounds } } : {}),
  });
  return out!;
}

const value = <T>(extra: { ok: boolean }) => {
  expect(extra.ok).toBe(true);
  return (extra as unknown as { value: T }).value;
};

describe('one statement reader per SQL dump', () => {
  for (const file of ['shop.pg.sql.gz', 'shop.mysql.sql.gz']) {
    it(`${file}: the catalog and a second listener get the same statements from one reading`, async () => {
      const bytes = readFileSync(path.join(FIXTURES, file));
      const decoded = gunzipSync(bytes);
      const text = decoded.toString('utf8');
      reads.bytes = reads.chars = 0;
      const other = listener();
      const out = await read(bytes, [new FingerprintSink('dump.sql.gz', path.join(tmp, `${file}.listing`)), other]);
      expect(out.result.verdict).toBe('verified');
      // Every byte once, through the one reader, for both sinks; no one parses the text again.
      expect(reads.bytes).toBe(decoded.length);
      expect(reads.chars).toBe(0);
      const fp = value<FileFingerprint>(out.extras[0]!);
      // The catalog names a MySQL table without its database (the dump's USE decides it), as it always has.
      const tables = Object.fromEntries(Object.entries(manifest.files[file]!.tables!).map(([t, n]) => [file.includes('mysql') ? t.split('.').pop()! : t, n]));
      expect(fp.sql?.tables).toEqual(tables);
      expect(fp.note).toBeUndefined();
      // The listener saw the whole dump: its statements' text, put back together, is the dump.
      const joined = other.got.map((e) => (e.type === 'copy-bytes' ? e.bytes.toString('utf8') : e.text)).join('');
      expect(joined).toBe(text);
    });
  }

  it('restore-test: PGlite restores the pg_dump from the same reading the catalog counts, no second one', async () => {
    const bytes = readFileSync(path.join(FIXTURES, 'shop.pg.sql.gz'));
    const decoded = gunzipSync(bytes);
    const restore = new DispatchSink({ engine: 'embedded', asserts: [], execTimeoutMs: 5_000, keep: false, allowEmpty: false, signal: new AbortController().signal, encrypted: false, onFatal: () => {} });
    reads.bytes = reads.chars = 0;
    const out = await read(bytes, [new FingerprintSink('dump.sql.gz', path.join(tmp, 'restore.listing')), restore as unknown as ContentSink]);
    const fp = value<FileFingerprint>(out.extras[0]!);
    const restored = value<FileRestore>(out.extras[1]!);
    expect(restored).toMatchObject({ verdict: 'restored', failure: null });
    const expected = manifest.files['shop.pg.sql.gz']!.tables!;
    expect(Object.fromEntries(restored.tables.map((t) => [t.table, t.restored]))).toEqual(expected);
    expect(fp.sql?.tables).toEqual(expected);
    // The engine read none itself: the bytes went through one reader once, and no text reader parsed them again.
    expect(reads.bytes).toBe(decoded.length);
    expect(reads.chars).toBe(0);
  }, 60_000);

  it("a statement over the reader's bound stops the reading for every listener, with one error event, and the catalog notes it", async () => {
    const long = `-- PostgreSQL database dump\n\nCREATE TABLE public.t (a text);\nINSERT INTO public.t VALUES ('${'x'.repeat(2_000_000)}');\nINSERT INTO public.t VALUES ('y');\n`;
    // Gzipped: the content stage inflates it in 256 kB pieces, so the statement arrives in several.
    const bytes = gzipSync(Buffer.from(long));
    const other = listener();
    const out = await read(bytes, [new FingerprintSink('dump.sql', path.join(tmp, 'bound.listing')), other], { maxStatement: 4096 });
    const errors = other.got.filter((e) => e.type === 'error');
    expect(errors).toHaveLength(1);
    expect(other.got.at(-1)).toBe(errors[0]);
    expect((errors[0] as { message: string }).message).toMatch(/longer than 4096 characters \(from line 4\) is over the reader's bound: BACKUPCTL_RESTORE_MAX_STATEMENT=4096/);
    // Memory held the bound, not the statement: nothing after it was read.
    expect(other.got.some((e) => e.type === 'statement' && e.head.startsWith('INSERT'))).toBe(false);
    const fp = value<FileFingerprint>(out.extras[0]!);
    expect(fp.note).toMatch(/^content: a statement, string, comment run or COPY line longer than 4096 characters/);
    expect(fp.sql?.tables).toEqual({ 'public.t': 0 });
  });
});
