// Issue 45 (restore-test, PostgreSQL --into): what a hostile dump leaves on a privileged --into server. Each
// case restores a small dump generated here through the code users run (the content stage, the dispatcher, the
// SQL sink) into a real PostgreSQL this test starts, then looks at the leftover itself: pg_prepared_xacts,
// pg_database, pg_roles.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DispatchSink } from '../../src/restore/dispatch.js';
import type { FileRestore, RestoreOptions } from '../../src/restore/types.js';
import { feed, options } from '../helpers/restore.js';
import { startPgServer, type PgServer } from '../helpers/pg-server.js';

const T = 180_000;
const HEAD = "--\n-- PostgreSQL database dump\n--\n\nSET statement_timeout = 0;\nSET client_encoding = 'UTF8';\n\n";

let pg: PgServer;
const restore = (sql: string, o: Partial<RestoreOptions> = {}): Promise<FileRestore> =>
  feed(new DispatchSink({ ...options({ engine: 'server', into: pg.url, ...o }), encrypted: false }), Buffer.from(sql));

/** Nothing of any test is left on the server: no scratch database, no throwaway login, no prepared transaction. */
function nothingLeft(): void {
  expect(pg.sql('SELECT count(*) FROM pg_prepared_xacts')).toBe('0');
  expect(pg.sql("SELECT count(*) FROM pg_database WHERE datname LIKE 'backupctl\\_restore\\_%'")).toBe('0');
  expect(pg.sql("SELECT count(*) FROM pg_roles WHERE rolname LIKE 'backupctl\\_r\\_%'")).toBe('0');
}

beforeAll(async () => {
  pg = await startPgServer(['max_prepared_transactions=4']);
}, T);
afterAll(async () => {
  await pg?.stop();
});

describe('--into a server with prepared transactions enabled', () => {
  test(
    'a dump ending in PREPARE TRANSACTION fails the test, and its transaction, the scratch database and the login are gone',
    async () => {
      expect(pg.sql('SHOW max_prepared_transactions')).toBe('4');
      const r = await restore(`${HEAD}CREATE TABLE public.t (id int);\nINSERT INTO public.t VALUES (1), (2), (3);\nBEGIN;\nSELECT pg_advisory_xact_lock(7);\nPREPARE TRANSACTION 'stay forever';\n`);
      expect(r.verdict).toBe('failed');
      expect(r.failure!.message).toBe('the dump left 1 prepared transaction (PREPARE TRANSACTION "stay forever"): rolled back; a dump commits what it restores');
      nothingLeft();
    },
    T,
  );

  test(
    'a prepared transaction that holds the counted table (ALTER TABLE, an exclusive lock) does not hang the counts',
    async () => {
      const t0 = Date.now();
      const r = await restore(`${HEAD}CREATE TABLE public.t (id int);\nINSERT INTO public.t VALUES (1), (2);\nBEGIN;\nALTER TABLE public.t ADD COLUMN y int;\nPREPARE TRANSACTION 'x''; DROP DATABASE postgres; --';\n`);
      expect(r.verdict).toBe('failed');
      expect(r.failure!.message).toMatch(/^the dump left 1 prepared transaction \(PREPARE TRANSACTION "x'; DROP DATABASE postgres; --"\): rolled back/);
      expect(Date.now() - t0).toBeLessThan(30_000);
      nothingLeft();
      expect(pg.sql("SELECT count(*) FROM pg_database WHERE datname = 'postgres'")).toBe('1');
    },
    T,
  );
});

describe('what is counted is what the dump created', () => {
  test(
    'a table dropped and replaced by a view of constant rows (same name) is not counted as the rows the dump held',
    async () => {
      const r = await restore(
        `${HEAD}CREATE TABLE public.keep (id int);\nINSERT INTO public.keep VALUES (1);\nCREATE TABLE public.t (id int);\nINSERT INTO public.t VALUES (1), (2), (3);\n` +
          `DO $$BEGIN EXECUTE 'DROP TABLE public.t'; EXECUTE 'CREATE VIEW public.t AS SELECT generate_series(1, 3) AS id'; END$$;\n`,
      );
      expect(r.tables).toEqual([
        { table: 'public.keep', expected: 1, restored: 1 },
        { table: 'public.t', expected: 3, restored: null },
      ]);
      expect(r.verdict).toBe('failed');
      expect(r.failure!.message).toBe('public.t: the dump holds 3 rows, and the table cannot be counted after the restore');
      nothingLeft();
    },
    T,
  );
});
