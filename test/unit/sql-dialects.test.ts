// Issue 43: what differs between the SQL dialects is said once, in DIALECTS
// (src/restore/sql/dialects.ts); the restore's driver, its noise filter, the
// --into URL and the planning of a placement ask it. Every dialect of the
// pipeline and of the engines has its entry, every entry every field, and
// the facts behave as they did when they were branches on a dialect's name.
import { describe, expect, test } from 'vitest';
import { KINDS, type SqlDialect } from '../../src/pipeline/kinds.js';
import { DIALECTS, SQL_DIALECTS, type DialectRules } from '../../src/restore/sql/dialects.js';
import { SQL_ENGINES } from '../../src/restore/sql/sink.js';
import { SqlRun } from '../../src/restore/sql/run.js';
import { NoiseFilter, Warnings } from '../../src/restore/sql/noise.js';
import { dialectOfScheme, parseIntoUrl } from '../../src/restore/servers/url.js';
import type { SqlTarget } from '../../src/restore/sql/target.js';

/** A target that takes everything and runs nothing: SqlRun's counting alone. */
const sink = (dialect: SqlDialect): SqlTarget => ({
  dialect,
  info: { name: dialect, runs: 'embedded', product: 'test', version: null },
  database: null,
  caps: {},
  dead: false,
  statement: async () => {},
  blank: async () => {},
  raw: async () => {},
  copyStart: async () => {},
  copyData: async () => {},
  copyEnd: async () => {},
  finish: async () => {},
  countRows: async () => [],
  countTables: async () => 0,
  firstCell: async () => null,
  close: async () => [],
  abort: async () => {},
});

async function counted(dialect: SqlDialect, text: string): Promise<[string, string, number][]> {
  const run = new SqlRun(dialect, sink(dialect), new Warnings());
  for (let i = 0; i < text.length; i += 5) await run.feed(text.slice(i, i + 5));
  await run.end();
  return run.counted().map((t) => [t.display, t.sql, t.expected]);
}

describe('the record of SQL dialects', () => {
  test('covers every dialect the kinds read and the engines restore, each with every field', () => {
    const ofKinds = [...new Set(Object.values(KINDS).flatMap((k) => (k.statements ? [k.statements] : [])))];
    const ofEngines = SQL_ENGINES.flatMap((e) => [e.dialect, e.intoDialect]);
    for (const d of [...ofKinds, ...ofEngines]) expect(SQL_DIALECTS).toContain(d);
    expect([...SQL_DIALECTS].sort()).toEqual([...new Set([...ofKinds, ...ofEngines])].sort());
    // The type says it (Record<SqlDialect, DialectRules>); at run time, no entry lacks what another has.
    const fields = (r: DialectRules) => Object.keys(r).sort();
    for (const d of SQL_DIALECTS) expect(fields(DIALECTS[d])).toEqual(fields(DIALECTS.postgres));
    for (const d of SQL_DIALECTS) for (const s of DIALECTS[d].schemes) expect(dialectOfScheme(s)).toBe(d);
    expect(dialectOfScheme('ftp')).toBeUndefined();
  });

  test("a MySQL table key folds case, PostgreSQL's does not", async () => {
    expect(DIALECTS.mysql.tableKey('Shop.Orders')).toBe('shop.orders');
    expect(DIALECTS.postgres.tableKey('public."Order"')).toBe('public."Order"');
    // One table in MySQL, whatever the case of its name; two in PostgreSQL.
    expect(await counted('mysql', 'CREATE TABLE `Orders` (id int);\nINSERT INTO `orders` VALUES (1),(2);\n')).toEqual([['Orders', 'Orders', 2]]);
    expect(await counted('postgres', 'CREATE TABLE public."Order" (id int);\nINSERT INTO public.order VALUES (1),(2);\n')).toEqual([
      ['public."Order"', 'public."Order"', 0],
      ['public.order', 'public.order', 2],
    ]);
  });

  test("schema and database qualification, version comments, DROP TABLE: each dialect's own", async () => {
    // PostgreSQL: SET search_path qualifies; MySQL reads no search_path, and its one database names the tables.
    expect(await counted('postgres', 'SET search_path = app;\nCREATE TABLE t (x int);\nINSERT INTO t VALUES (1);\n')).toEqual([['app.t', 'app.t', 1]]);
    expect(await counted('mysql', 'SET search_path = app;\nCREATE DATABASE shop;\nUSE shop;\nCREATE TABLE t (x int);\nINSERT INTO t VALUES (1);\n')).toEqual([['shop.t', 't', 1]]);
    // MySQL's count names the bare table; PostgreSQL's as the dump wrote it.
    expect(await counted('mysql', 'INSERT INTO `shop` . `t` VALUES (1);\n')).toEqual([['shop.t', 't', 1]]);
    expect(await counted('postgres', 'INSERT INTO app . t VALUES (1);\n')).toEqual([['app.t', 'app.t', 1]]);
    // A version comment opens a MySQL statement; in PostgreSQL it is a comment, not a table.
    expect(DIALECTS.mysql.openVersionComment('/*!40101 CREATE TABLE t */')).toBe('CREATE TABLE t */');
    expect(DIALECTS.postgres.openVersionComment('/*!40101 CREATE TABLE t */')).toBe('/*!40101 CREATE TABLE t */');
    // mysqldump's stand-in of a view, dropped under another case: forgotten.
    expect(await counted('mysql', 'CREATE TABLE `V` (x int);\nDROP TABLE IF EXISTS `v`;\n')).toEqual([]);
    expect(await counted('postgres', 'CREATE TABLE "V" (x int);\nDROP TABLE IF EXISTS v;\n')).toEqual([['"V"', '"V"', 0]]);
  });

  test('the messages that name a dialect read as before', () => {
    const two = (f: NoiseFilter, a: string, b: string) => (f.statement(a), f.statement(b));
    expect(two(new NoiseFilter(DIALECTS.postgres, {}, 'x'), 'CREATE DATABASE a;', 'CREATE DATABASE b;')).toEqual({
      action: 'fail',
      message: 'the dump holds several databases (a, b): restore-test restores one database into a scratch one, never into another; dump each database on its own (pg_dump DBNAME) to test it',
    });
    expect(two(new NoiseFilter(DIALECTS.mysql, {}, 'x'), 'USE a;', 'USE b;')).toMatchObject({ message: expect.stringContaining('(mysqldump DBNAME) to test it') });
    expect(() => parseIntoUrl('ftp://x')).toThrow(/^--into: unknown scheme ftp:\/\/ \(allowed: postgres:\/\/, postgresql:\/\/, mysql:\/\/, mariadb:\/\/\)$/);
    expect(() => parseIntoUrl('nourl')).toThrow(
      '--into must be a URL such as postgres://user@host:5432/postgres or mysql://user@host:3306/ (the password in BACKUPCTL_RESTORE_URL or --into-file, percent-encoded: @ is %40) (got (not a URL))',
    );
    // A socket is a folder for PostgreSQL, the file itself for MySQL, however the URL says it.
    expect(parseIntoUrl('postgresql://u@/db?host=/run/postgresql')).toMatchObject({ dialect: 'postgres', socketDir: '/run/postgresql' });
    expect(parseIntoUrl('mariadb://u@%2Frun%2Fmysqld%2Fmysqld.sock/')).toMatchObject({ dialect: 'mysql', socket: '/run/mysqld/mysqld.sock' });
    expect(parseIntoUrl('mysql://u@localhost/?host=/run/mysqld/mysqld.sock')).toMatchObject({ socket: '/run/mysqld/mysqld.sock' });
  });
});
