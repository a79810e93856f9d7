// restore-test's SQLite engine (issue 43: the engine that proves a new engine is one file), through the
// built CLI against the emulator's SQLite jobs (--archive-faults; the files made by the real sqlite3,
// src/scripts/make-sqlite-fixtures.mjs): a database file and a .dump restored in memory with every
// table counted, a damaged file failing (exit 14), and `help kinds` saying what the engine does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { emulatorSession } from '../helpers/emulator.js';

type Json = any;
let tmp: string;
const session = emulatorSession({ seed: 'demo', archiveFaults: true, env: () => ({ TMPDIR: tmp }) });
const { cli } = session;
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'src/emulator/fixtures/restore/manifest.json'), 'utf8')).files as Record<string, { tables: Record<string, number> }>;
const fileOf = (stdout: string): Json => JSON.parse(stdout).backups[0].files[0];

beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'backupctl-sqlite-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('restore-test of a SQLite backup', () => {
  it('a database file: opened in memory, integrity checked, every base table counted (exit 0)', async () => {
    const r = await cli(['restore-test', 'sqlite file', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const f = fileOf(r.stdout);
    expect(f).toMatchObject({ kind: 'sqlite', verdict: 'restored', failure: null, engine: { name: 'sqlite', runs: 'embedded', mode: 'embedded', product: 'SQLite' } });
    expect(f.engine.version).toMatch(/^3\.\d+\.\d+$/);
    // Every base table with its rows as sqlite3 wrote them; sqlite_sequence (the AUTOINCREMENT table's) and the view are not tables of the data.
    const want = manifest['shop.sqlite']!.tables;
    expect(Object.fromEntries(f.tables.map((t: Json) => [t.table, t.restored]))).toEqual(want);
    expect(f.rows).toBe(Object.values(want).reduce((a, b) => a + b, 0));
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('a sqlite3 .dump (gzipped): its statements run in memory, each table counted against its INSERTs (exit 0)', async () => {
    const r = await cli(['restore-test', 'sqlite dump', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const f = fileOf(r.stdout);
    expect(f).toMatchObject({ kind: 'sqlite-dump', verdict: 'restored', check: { verdict: 'verified', format: 'sqlite-dump.gz' }, engine: { name: 'sqlite' } });
    const want = manifest['shop.sqlite.sql.gz']!.tables;
    expect(f.tables).toEqual(Object.entries(want).sort(([a], [b]) => a.localeCompare(b)).map(([table, n]) => ({ table, expected: n, restored: n })));
    // The table, as a person reads it: the engine and where it ran.
    const table = await cli(['restore-test', 'sqlite dump', '-o', 'table']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/restored +sqlite-dump-\S+\.sql\.gz +SQLite 3\.\d+\.\d+ \(embedded\) +5 +550 /);
  });

  it('a file with a damaged page fails (exit 14), never "restored", with SQLite\'s words', async () => {
    const r = await cli(['restore-test', 'sqlite damaged', '--json']);
    expect(r.code, r.stderr).toBe(14);
    const f = fileOf(r.stdout);
    expect(f.verdict).toBe('failed');
    expect(f.failure.message).toMatch(/^(SQLite: database disk image is malformed|PRAGMA integrity_check: )/);
    expect(r.stderr).toContain('the restore test of job sqlite damaged failed');
  });

  it('--assert on a job of the files recipe is refused before a byte is read (exit 2): its recipe says a file archive', async () => {
    // restore-test cannot know before the bytes that a "files" job holds a database (--assert in SQLite: test/unit/restore-sqlite.test.ts).
    const r = await cli(['restore-test', 'sqlite dump', '--json', '--assert', 'SELECT count(*) = 60 FROM customers']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--assert runs SQL in a restored database, but job sqlite dump backs up files (a file archive)');
  });

  it('help kinds says what the SQLite engine does with each of its kinds', async () => {
    const r = await cli(['help', 'kinds']);
    expect(r.code, r.stderr).toBe(0);
    const text = r.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('sqlite: a SQLite database verify: size and hash only restore-test: opened in an in-memory SQLite database (embedded, sql.js), PRAGMA integrity_check, every table counted sqlite-dump:');
    expect(text).toContain('sqlite-dump: a SQLite dump verify: content_bytes: the SQL bytes; the end marker "COMMIT;" when the dump opens as sqlite3 .dump does restore-test: its statements run in an in-memory SQLite database (embedded, sql.js), PRAGMA integrity_check, every table counted against its INSERTs');
  });
});
