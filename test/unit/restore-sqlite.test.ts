// The SQLite engine's own rules (src/restore/sqlite.ts), through the dispatcher as restore-test uses it:
// --assert in the restored database, rows counted against a dump's INSERTs, the statements a dump may not
// hold refused with their line, an empty restore, the size it restores in memory.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { readBackups } from '../../src/pipeline/index.js';
import { DispatchSink } from '../../src/restore/dispatch.js';
import type { FileRestore } from '../../src/restore/types.js';
import { memoryTransfer } from '../helpers/transfer.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../src/emulator/fixtures/restore');
const HEAD = 'PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\n';

async function restore(bytes: Buffer, o: { asserts?: string[]; allowEmpty?: boolean } = {}): Promise<FileRestore> {
  const sink = new DispatchSink({ engine: 'auto', asserts: o.asserts ?? [], execTimeoutMs: 5_000, keep: false, allowEmpty: o.allowEmpty ?? false, signal: new AbortController().signal, encrypted: false, onFatal: () => {} });
  const backup = { id: 'b1', created_at: null, status: 'completed', encrypted: false, files: [{ name: 'f', url: 'u', size: bytes.length }] };
  const [[out]] = await readBackups<FileRestore>([backup], { parallel: 1, signal: new AbortController().signal, now: () => new Date(0), transfer: memoryTransfer(bytes), sinks: () => [sink] });
  const extra = out!.extras[0]!;
  if (!extra.ok) throw extra.error;
  return extra.value;
}

describe('the SQLite engine', () => {
  it('--assert: its first cell decides, in the restored database', async () => {
    const db = readFileSync(path.join(FIXTURES, 'shop.sqlite'));
    const ok = await restore(db, { asserts: ['SELECT count(*) = 60 FROM customers', "SELECT count(*) FROM order_totals WHERE name LIKE '%O''Neil'"] });
    expect(ok).toMatchObject({ verdict: 'restored', failure: null, assertions: [{ ok: true, value: '1' }, { ok: true, value: '150' }] });
    const no = await restore(db, { asserts: ['SELECT count(*) = 61 FROM customers'] });
    expect(no).toMatchObject({ verdict: 'failed', failure: { message: '--assert returned 0, not true: SELECT count(*) = 61 FROM customers' } });
    const refused = await restore(db, { asserts: ["ATTACH DATABASE '/tmp/x.db' AS x"] });
    expect(refused.failure?.message).toMatch(/^--assert failed: .*refused: it attaches another database/);
  });

  it('a dump: each table counted against its INSERTs; a trigger that drops rows makes the counts differ (failed)', async () => {
    const dump = gunzipSync(readFileSync(path.join(FIXTURES, 'shop.sqlite.sql.gz'))).toString();
    expect((await restore(Buffer.from(dump))).verdict).toBe('restored');
    // A trigger created before the data deletes every other note: the dump holds 4 rows, the table 2.
    const dropping = `${HEAD}CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT);\nCREATE TRIGGER drop_even AFTER INSERT ON notes WHEN NEW.id % 2 = 0 BEGIN DELETE FROM notes WHERE id = NEW.id; END;\n${[1, 2, 3, 4].map((i) => `INSERT INTO notes VALUES(${i},'n${i}');`).join('\n')}\nCOMMIT;\n`;
    const r = await restore(Buffer.from(dropping));
    expect(r).toMatchObject({ verdict: 'failed', tables: [{ table: 'notes', expected: 4, restored: 2 }], failure: { message: 'notes: the dump holds 4 rows, the restored table 2' } });
  });

  it.each([
    ['a PRAGMA sqlite3 .dump does not write', 'PRAGMA max_page_count = 2147483647;', /refused: a PRAGMA sqlite3 \.dump does not write/],
    ['WITH RECURSIVE (a statement that may never end)', 'INSERT INTO t VALUES((WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c));', /refused: WITH RECURSIVE/],
    ['DETACH', "DETACH DATABASE 'main';", /refused: it attaches another database/],
    ['a syntax error', 'CREATE TABLEX u(a);', /^SQLite: near "TABLEX": syntax error$/],
  ])('%s: failed at its line, the statement quoted', async (_what, statement, message) => {
    const r = await restore(Buffer.from(`${HEAD}CREATE TABLE t(a);\n-- a comment\n${statement}\nINSERT INTO t VALUES(1);\nCOMMIT;\n`));
    expect(r.verdict).toBe('failed');
    expect(r.failure?.message).toMatch(message);
    expect(r.failure).toMatchObject({ line: 5, statement });
  });

  it('a restore that leaves no table fails unless --allow-empty', async () => {
    const empty = Buffer.from(`${HEAD}COMMIT;\n`);
    expect((await restore(empty)).failure?.message).toBe('the restore left no table (--allow-empty accepts an empty database)');
    expect(await restore(empty, { allowEmpty: true })).toMatchObject({ verdict: 'restored', tables: [], rows: 0 });
  });

  it('a file in WAL mode is read without its -wal file; bytes that only start like SQLite fail', async () => {
    const wal = Buffer.from(readFileSync(path.join(FIXTURES, 'shop.sqlite')));
    wal[18] = wal[19] = 2;
    expect(await restore(wal)).toMatchObject({ kind: 'sqlite', verdict: 'restored', rows: 550 });
    const fake = Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(4000, 0x41)]);
    expect(await restore(fake)).toMatchObject({ kind: 'sqlite', verdict: 'failed', failure: { message: expect.stringMatching(/^SQLite: /) } });
  });
});
