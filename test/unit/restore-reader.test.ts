// The SQL statement reader and the noise filter of restore-test (issue 24
// §2-3): statements, meta-commands and COPY blocks of both dialects with
// their 1-based lines, the same events whatever the chunk boundaries, rows
// counted per table, and the noise of a dump taken elsewhere.
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { NoiseFilter } from '../../src/restore/sql/noise.js';
import { DIALECTS } from '../../src/restore/sql/dialects.js';
import type { SqlEvent } from '../../src/pipeline/sql-events.js';
import { SqlReader } from '../../src/pipeline/sql-reader.js';
import { countInsertRows } from '../../src/pipeline/sql-rows.js';
import { isGzip, sniffContent } from '../../src/pipeline/kinds.js';
import { parseIntoUrl, describeRaw } from '../../src/restore/servers/url.js';
import { maxStatement, planSqlEngine } from '../../src/restore/sql/sink.js';
import { firstSchema, SqlRun } from '../../src/restore/sql/run.js';
import { Warnings } from '../../src/restore/sql/noise.js';
import type { SqlTarget } from '../../src/restore/sql/target.js';
import { fixture, manifest } from '../helpers/restore.js';

function read(dialect: 'postgres' | 'mysql', text: string, chunk = text.length): SqlEvent[] {
  const r = new SqlReader(dialect);
  const out: SqlEvent[] = [];
  for (let i = 0; i < text.length; i += chunk) out.push(...r.push(text.slice(i, i + chunk)));
  out.push(...r.end());
  return out;
}

/** Events with copy-data merged, so that chunkings compare equal. */
function canonical(events: SqlEvent[]): unknown[] {
  const out: { type: string; text: string; line?: number; rows?: number }[] = [];
  for (const e of events) {
    const last = out[out.length - 1];
    if (e.type === 'copy-data' && last?.type === 'copy-data') {
      last.text += e.text;
      last.rows! += e.rows;
      continue;
    }
    out.push({ ...e } as never);
  }
  return out;
}

const PG = `--
-- PostgreSQL database dump
--

\\restrict abc123

SET statement_timeout = 0;
SET transaction_timeout = 0;
CREATE FUNCTION public.f() RETURNS text
    LANGUAGE plpgsql
    AS $_$ BEGIN RETURN 'a;b'; END $_$;
CREATE FUNCTION public.g() RETURNS int LANGUAGE sql
BEGIN ATOMIC
  SELECT 1;
  SELECT CASE WHEN true THEN 2 END;
END;
COPY public.t (a, b) FROM stdin;
1\tx;y
2\t\\N
3\tback\\\\slash
\\.
INSERT INTO public.u VALUES (1, E'it\\'s (a) ;'), (2, 'O''Brien (x)'), (3, $$dollar ) ( $$);
/* nested /* comment */ ; still */ SELECT 1;

\\unrestrict abc123
`;

describe('the PostgreSQL reader', () => {
  test('statements, meta-commands and COPY blocks with the lines where they start; texts put back together are the input', () => {
    const ev = read('postgres', PG);
    expect(ev.map((e) => (e as { text: string }).text).join('')).toBe(PG);
    const summary = ev.map((e) => [e.type, 'line' in e ? e.line : null, e.type === 'copy-data' ? e.rows : e.type === 'meta' ? e.command : null]);
    expect(summary).toEqual([
      ['meta', 5, 'restrict'],
      ['statement', 7, null],
      ['statement', 8, null],
      ['statement', 9, null],
      ['statement', 12, null],
      ['statement', 17, null],
      ['copy-data', null, 3],
      ['copy-end', 21, null],
      ['statement', 22, null],
      ['statement', 23, null],
      ['meta', 25, 'unrestrict'],
    ]);
    const ins = ev[8] as Extract<SqlEvent, { type: 'statement' }>;
    expect(countInsertRows(ins.head, 'postgres')).toEqual({ table: 'public.u', rows: 3 });
  });

  test('the same events whatever the chunk boundaries (1, 2, 3, 7 and 64 characters)', () => {
    const whole = canonical(read('postgres', PG));
    for (const size of [1, 2, 3, 7, 64]) expect(canonical(read('postgres', PG, size)), `chunk ${size}`).toEqual(whole);
  });

  test('the real pg_dump fixture: every COPY row counted, every line number kept', () => {
    const text = gunzipSync(fixture('shop.pg.sql.gz')).toString('utf8');
    for (const size of [text.length, 4096, 333]) {
      const ev = read('postgres', text, size);
      expect(ev.map((e) => (e as { text: string }).text).join('')).toBe(text);
      const rows: Record<string, number> = {};
      let table = '';
      for (const e of ev) {
        if (e.type === 'statement' && e.copy) table = /^COPY (\S+)/.exec(e.head)![1]!;
        if (e.type === 'copy-data') rows[table] = (rows[table] ?? 0) + e.rows;
        if ('line' in e && e.type !== 'copy-end') {
          const first = text.split('\n')[e.line - 1]!;
          expect(first.trim().length, `line ${e.line}`).toBeGreaterThan(0);
        }
      }
      expect(rows).toEqual(manifest.files['shop.pg.sql.gz']!.tables);
    }
  });

  test('a meta-command inside a statement is refused (psql would run it)', () => {
    const ev = read('postgres', 'SELECT 1\n\\! rm -rf /\n;\n');
    expect(ev[0]).toMatchObject({ type: 'error', line: 2, message: expect.stringMatching(/psql meta-command inside a statement/) });
  });
});

const MY = `/*M!999999\\- enable the sandbox mode */
-- MariaDB dump 10.19
/*!40101 SET NAMES utf8mb4 */;
CREATE TABLE \`o\` (\`id\` int) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci;
INSERT INTO \`o\` VALUES (1,'it\\'s; (odd)'),(2,"say \\"hi\\" )"),(3,'a''b'),
(4,NULL);
# a hash comment ; with a semicolon
DELIMITER ;;
/*!50003 CREATE*/ /*!50017 DEFINER=\`root\`@\`localhost\`*/ /*!50003 TRIGGER t AFTER INSERT ON o FOR EACH ROW BEGIN INSERT INTO a VALUES (1); END */;;
DELIMITER ;
INSERT INTO o (id) VALUES (5) ON DUPLICATE KEY UPDATE id = VALUES(id);
`;

describe('the MySQL reader', () => {
  test('DELIMITER, executable comments, the sandbox line, escaped quotes; tuples counted', () => {
    const ev = read('mysql', MY);
    expect(ev.map((e) => (e as { text: string }).text).join('')).toBe(MY);
    expect(ev.map((e) => [e.type, 'line' in e ? e.line : null])).toEqual([
      ['client', 1],
      ['statement', 3],
      ['statement', 4],
      ['statement', 5],
      ['client', 8],
      ['statement', 9],
      ['client', 10],
      ['statement', 11],
      ['trailing', null],
    ]);
    const heads = ev.filter((e): e is Extract<SqlEvent, { type: 'statement' }> => e.type === 'statement').map((e) => e.head);
    expect(countInsertRows(heads[2]!, 'mysql')).toEqual({ table: 'o', rows: 4 });
    expect(countInsertRows(heads[4]!, 'mysql')).toEqual({ table: 'o', rows: 1 });
    for (const size of [1, 5, 64]) expect(canonical(read('mysql', MY, size)), `chunk ${size}`).toEqual(canonical(ev));
  });

  test('the real mariadb-dump fixture: the tuples of every extended INSERT', () => {
    const text = gunzipSync(fixture('shop.mysql.sql.gz')).toString('utf8');
    const rows: Record<string, number> = {};
    for (const e of read('mysql', text, 1000)) {
      if (e.type !== 'statement') continue;
      const c = countInsertRows(e.head, 'mysql');
      if (c) rows[`shop.${c.table}`] = (rows[`shop.${c.table}`] ?? 0) + c.rows;
    }
    const want = Object.fromEntries(Object.entries(manifest.files['shop.mysql.sql.gz']!.tables!).filter(([, n]) => n > 0));
    expect(rows).toEqual(want);
  });
});

describe('the noise filter', () => {
  test('PostgreSQL: owners, privileges, a SET the target lacks, a missing extension and its comment, CREATE DATABASE and \\connect', () => {
    const f = new NoiseFilter(DIALECTS.postgres, { settings: new Set(['statement_timeout']), extensions: new Set(['plpgsql']) }, 'backupctl_restore_x');
    expect(f.statement('ALTER TABLE public.t OWNER TO someone;')).toMatchObject({ action: 'skip', kind: 'owner' });
    expect(f.statement('GRANT SELECT ON TABLE public.t TO reader;')).toMatchObject({ action: 'skip', kind: 'privileges' });
    expect(f.statement('ALTER DEFAULT PRIVILEGES FOR ROLE x GRANT SELECT ON TABLES TO y;')).toMatchObject({ action: 'skip', kind: 'privileges' });
    expect(f.statement('SET transaction_timeout = 0;')).toMatchObject({ action: 'skip', kind: 'set:transaction_timeout' });
    expect(f.statement('SET statement_timeout = 0;')).toEqual({ action: 'pass' });
    expect(f.statement('CREATE EXTENSION IF NOT EXISTS postgis WITH SCHEMA public;')).toMatchObject({ action: 'skip', kind: 'extension:postgis' });
    expect(f.statement("COMMENT ON EXTENSION postgis IS 'x';")).toMatchObject({ action: 'skip' });
    expect(f.statement('CREATE EXTENSION IF NOT EXISTS plpgsql;')).toEqual({ action: 'pass' });
    expect(f.statement("CREATE ROLE admin;")).toMatchObject({ action: 'skip', kind: 'cluster' });
    expect(f.statement("COPY t FROM PROGRAM 'id';")).toMatchObject({ action: 'fail' });
    expect(f.statement('CREATE DATABASE shop WITH TEMPLATE = template0;')).toMatchObject({ action: 'skip', kind: 'database' });
    expect(f.meta('connect', `-reuse-previous=on "dbname='shop'"`)).toMatchObject({ action: 'skip', kind: 'database' });
    expect(f.meta('connect', 'other')).toMatchObject({ action: 'fail', message: expect.stringMatching(/several databases \(shop, other\)/) });
    expect(f.meta('!', 'rm -rf /')).toMatchObject({ action: 'fail' });
  });

  test("MySQL: MySQL 8's utf8mb4_0900_ai_ci on MariaDB, DEFINER, the sandbox line for MySQL's client, USE", () => {
    const f = new NoiseFilter(DIALECTS.mysql, { has0900Collations: false, clientIsMysql: true }, 'backupctl_restore_x');
    expect(f.statement('CREATE TABLE `o` (`id` int) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci;')).toEqual({
      action: 'rewrite',
      text: 'CREATE TABLE `o` (`id` int) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;',
      kind: 'collation',
      what: "mapped MySQL 8's utf8mb4_0900_* collations to utf8mb4_unicode_ci (the target lacks them)",
    });
    expect(f.statement("INSERT INTO o VALUES ('utf8mb4_0900_ai_ci');")).toEqual({ action: 'pass' });
    const d = f.statement('/*!50003 CREATE*/ /*!50017 DEFINER=`root`@`localhost`*/ /*!50003 TRIGGER t AFTER INSERT ON o FOR EACH ROW SET @x = 1 */;;');
    expect(d).toMatchObject({ action: 'rewrite', kind: 'definer', text: '/*!50003 CREATE*/ /*!50017 */ /*!50003 TRIGGER t AFTER INSERT ON o FOR EACH ROW SET @x = 1 */;;' });
    expect(f.sandbox()).toMatchObject({ action: 'skip', kind: 'sandbox' });
    expect(f.statement('USE `shop`;')).toMatchObject({ action: 'skip', kind: 'database' });
    expect(f.statement("LOAD DATA INFILE '/etc/passwd' INTO TABLE t;")).toMatchObject({ action: 'fail' });
    expect(f.statement('CREATE DATABASE /*!32312 IF NOT EXISTS*/ `other`;')).toMatchObject({ action: 'fail' });
  });
});

describe('sniff', () => {
  test('each kind from its content only (the one sniffer of src/pipeline/kinds.ts, after the content stage inflated)', () => {
    const pg = fixture('shop.pg.sql.gz');
    expect(isGzip(pg)).toBe(true);
    expect(sniffContent(gunzipSync(pg), { gzip: true })).toBe('pg-plain');
    expect(sniffContent(fixture('shop.pgdump'))).toBe('pg-custom');
    expect(sniffContent(gunzipSync(fixture('shop.mysql.sql.gz')))).toBe('mysql');
    expect(sniffContent(Buffer.from('-- MySQL dump 10.13  Distrib 8.0.36\n'))).toBe('mysql');
    const mongo = Buffer.alloc(8);
    mongo.writeUInt32LE(0x8199e26d, 0);
    expect(sniffContent(mongo)).toBe('mongo-archive');
    expect(sniffContent(Buffer.from('PK\x03\x04rest', 'latin1'))).toBe('zip');
    const tar = Buffer.alloc(512);
    tar.write('ustar', 257, 'latin1');
    expect(sniffContent(tar)).toBe('tar');
    expect(sniffContent(Buffer.from('hello world\n'))).toBe('unknown');
    expect(sniffContent(gunzipSync(pg).subarray(0, 200))).toBe('pg-plain');
  });
});

describe('--into URLs', () => {
  test('TCP and Unix socket forms; the password is never shown', () => {
    expect(parseIntoUrl('postgres://u:p%40ss@db.example:5433/app?sslmode=require')).toMatchObject({ dialect: 'postgres', user: 'u', password: 'p@ss', host: 'db.example', port: 5433, database: 'app', params: { sslmode: 'require' } });
    expect(parseIntoUrl('postgres://u:pw@/postgres?host=/tmp/dir')).toMatchObject({ socketDir: '/tmp/dir', database: 'postgres' });
    expect(parseIntoUrl('mysql://u:pw@localhost/?socket=/run/mysqld/mysqld.sock')).toMatchObject({ dialect: 'mysql', socket: '/run/mysqld/mysqld.sock' });
    expect(() => parseIntoUrl('ftp://x')).toThrow(/unknown scheme ftp/);
    expect(describeRaw('postgres://u:secret@h/db')).toBe('postgres://u:***@h/db');
  });
});

describe('engine choice', () => {
  test('auto: an --into of the other dialect is passed over with a note; local binaries next', async () => {
    const plan = await planSqlEngine('mysql', { engine: 'auto', into: 'postgres://u:secret@/postgres?host=/tmp/x' });
    expect(plan.placement).toBe('local');
    expect(plan.engine.dialect).toBe('mysql');
    expect(plan.notes).toEqual(['--into postgres://u:***@/postgres?host=/tmp/x is not a MySQL server: not used for this dump']);
  });

  test('--engine server with an --into of the other dialect, and --engine local with an unknown --run-as, are refused', async () => {
    await expect(planSqlEngine('pg-plain', { engine: 'server', into: 'mysql://u:p@localhost/' })).rejects.toMatchObject({ exitCode: 2, message: '--into is a MySQL server, and this dump is PostgreSQL' });
    const local = await planSqlEngine('pg-plain', { engine: 'local', runAs: 'no-such-account' }).catch((e: unknown) => e);
    // The cause leads the message (issue 42.9); the ways to get an engine follow.
    expect(local).toMatchObject({ exitCode: 15, message: process.getuid?.() === 0 ? 'no engine to restore a PostgreSQL dump: no account named no-such-account (--run-as)' : 'no engine to restore a PostgreSQL dump: --run-as no-such-account needs root; the server runs as the current user' });
    expect((local as { details: string[] }).details).toContain(
      process.getuid?.() === 0 ? '(no account named no-such-account (--run-as))' : '(--run-as no-such-account needs root; the server runs as the current user)',
    );
    await expect(planSqlEngine('pg-plain', { engine: 'embedded' })).resolves.toMatchObject({ placement: 'embedded', notes: [] });
  });

  test('--run-as postgres is refused for PostgreSQL: the machine\'s postgres account reaches the real clusters', async () => {
    const err = await planSqlEngine('pg-plain', { engine: 'local', runAs: 'postgres' }).catch((e: unknown) => e);
    expect((err as { details: string[] }).details.join('\n')).toMatch(/--run-as postgres: the machine's postgres account reaches the real clusters/);
  });
});

describe('issue 28 §9: counts of the tables the dump really loaded; §4: the reader\'s memory bound', () => {
  /** A target that takes everything and runs nothing: SqlRun's counting and bound alone. */
  const sink = (): SqlTarget => ({
    dialect: 'postgres',
    info: { name: 'postgres', runs: 'embedded', product: 'test', version: null },
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
  const counted = async (text: string, chunk = 7) => {
    const run = new SqlRun('postgres', sink(), new Warnings());
    for (let i = 0; i < text.length; i += chunk) await run.feed(text.slice(i, i + chunk));
    await run.end();
    return run.counted().map((t) => [t.display, t.sql, t.expected]);
  };

  test('comments inside and between the tuples of VALUES are not tuples, and do not stop the count', () => {
    expect(countInsertRows("INSERT INTO public.t VALUES (1, 'a'), /* (9) */ (2, 'b') -- (9)\n, (3, /* ) */ 'c');", 'postgres')).toEqual({ table: 'public.t', rows: 3 });
    expect(countInsertRows("INSERT INTO `t` VALUES (1),# (9)\n(2),/* ( */(3);", 'mysql')).toEqual({ table: 't', rows: 3 });
  });

  test('a pre-10.3 pg_dump (SET search_path = app, pg_catalog; then unqualified COPY) counts app.t', async () => {
    expect(await counted('SET search_path = app, pg_catalog;\nCREATE TABLE t (x int);\nCOPY t (x) FROM stdin;\n1\n2\n\\.\nINSERT INTO t VALUES (3);\n')).toEqual([['app.t', 'app.t', 3]]);
    expect(await counted("SELECT pg_catalog.set_config('search_path', 's', false);\nCOPY t (x) FROM stdin;\n1\n\\.\nSELECT pg_catalog.set_config('search_path', '', false);\nCOPY public.t (x) FROM stdin;\n1\n2\n\\.\n")).toEqual([
      ['s.t', 's.t', 1],
      ['public.t', 'public.t', 2],
    ]);
    expect(firstSchema('"$user", "App", public')).toBe('"App"');
  });

  test('a statement, a string or a run of comments longer than the bound fails, naming the bound and its setting', async () => {
    for (const text of ["SELECT '" + 'x'.repeat(5000), '-- c\n'.repeat(2000), 'CREATE TABLE t (x int);\nINSERT INTO t VALUES ' + '(1),'.repeat(2000)]) {
      const run = new SqlRun('postgres', sink(), new Warnings(), 4096);
      let err: unknown = null;
      try {
        for (let i = 0; i < text.length; i += 1000) await run.feed(text.slice(i, i + 1000));
      } catch (e) {
        err = e;
      }
      expect((err as Error)?.message).toMatch(/longer than 4096 characters \(from line \d+\) is over the reader's bound: BACKUPCTL_RESTORE_MAX_STATEMENT=4096/);
    }
    // Under the bound, the same text streams by.
    expect(await counted('-- c\n'.repeat(2000) + 'CREATE TABLE t (x int);\n', 500)).toEqual([['t', 't', 0]]);
    expect(maxStatement({ BACKUPCTL_RESTORE_MAX_STATEMENT: '256MiB' })).toBe(256 * 1024 * 1024);
    expect(() => maxStatement({ BACKUPCTL_RESTORE_MAX_STATEMENT: 'lots' })).toThrow('BACKUPCTL_RESTORE_MAX_STATEMENT="lots" is not a size (such as 256MiB)');
  });
});

describe('issue 28 §2: a psql without \\restrict is never given a dump', () => {
  test('psql 15.13 (before \\restrict) is refused with the versions that have it; 15.14 and 18 are taken', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-fake-psql-'));
    try {
      const fake = (v: string) => {
        writeFileSync(path.join(dir, 'psql'), `#!/bin/sh\necho "psql (PostgreSQL) ${v} (Debian)"\n`, { mode: 0o755 });
        writeFileSync(path.join(dir, 'pg_restore'), '#!/bin/sh\n', { mode: 0o755 });
      };
      fake('15.13');
      const err = await planSqlEngine('pg-plain', { engine: 'server', into: 'postgres://u:p@/postgres?host=/tmp/x', env: { PATH: dir } }).catch((e: unknown) => e);
      expect((err as { exitCode: number }).exitCode).toBe(15);
      expect((err as { details: string[] }).details.join('\n')).toContain('psql 15.13 has no \\restrict (13.22, 14.19, 15.14, 16.10, 17.6 or later)');
      const { psqlRestricts } = await import('../../src/restore/sql/postgres.js');
      for (const [v, ok] of [['15.14', true], ['16.9', false], ['17.6', true], ['18.0', true], ['12.22', false]] as const) {
        const copy = path.join(dir, `psql-${v}`);
        writeFileSync(copy, `#!/bin/sh\necho "psql (PostgreSQL) ${v}"\n`, { mode: 0o755 });
        expect((await psqlRestricts(copy)).ok, v).toBe(ok);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('issue 31: psql runs without Debian\'s pg_wrapper in between', () => {
  test('a psql that is a link to pg_wrapper is replaced by the newest /usr/lib/postgresql/<major>/bin/psql; any other psql is kept', async () => {
    const { findPgClients } = await import('../../src/restore/sql/postgres.js');
    const { postgresBinDirs, isExecutable } = await import('../../src/restore/servers/proc.js');
    const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-fake-wrapper-'));
    try {
      writeFileSync(path.join(dir, 'pg_wrapper'), '#!/bin/sh\necho "psql (PostgreSQL) 15.14"\n', { mode: 0o755 });
      symlinkSync('pg_wrapper', path.join(dir, 'psql'));
      const direct = postgresBinDirs().map((d) => path.join(d, 'psql')).find(isExecutable);
      expect(findPgClients(dir)?.psql).toBe(direct ?? path.join(dir, 'psql'));
      // Not the wrapper: a psql of the user's own (a script, a build of theirs) is what runs.
      rmSync(path.join(dir, 'psql'));
      writeFileSync(path.join(dir, 'psql'), '#!/bin/sh\necho "psql (PostgreSQL) 15.14"\n', { mode: 0o755 });
      expect(findPgClients(dir)?.psql).toBe(path.join(dir, 'psql'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
