// Issue 28: a tampered PostgreSQL dump gets nothing. Each case is a hostile
// dump (small text generated here) restored through the code users run (the
// dispatcher and the SQL sink) into a REAL ephemeral local PostgreSQL started
// by our code, a privileged --into server this test starts, and PGlite; each
// asserts that the ESCAPE DID NOT HAPPEN (marker file absent, the victim
// cluster's database, table, roles and postgresql.auto.conf unchanged), not
// only that the test failed. A second "victim" cluster on the machine accepts
// any local connection as its superuser (trust on a world-open socket): what
// a production cluster reachable by peer authentication is to the machine's
// postgres account.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { emulatorSession } from '../helpers/emulator.js';
import { childPids, startCli, until } from '../helpers/spawn.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DispatchSink } from '../../src/restore/dispatch.js';
import { activeEphemeralServers } from '../../src/restore/servers/ephemeral.js';
import { livePglite } from '../../src/restore/sql/pglite.js';
import type { FileRestore, RestoreOptions } from '../../src/restore/types.js';
import { feed, options, pidAlive } from '../helpers/restore.js';

const T = 180_000;
const BIN = readdirSync('/usr/lib/postgresql')
  .sort((a, b) => Number(b) - Number(a))
  .map((v) => `/usr/lib/postgresql/${v}/bin`)[0]!;

const sink = (o: RestoreOptions) => new DispatchSink({ ...o, encrypted: false });
const restore = (sql: string, o: Partial<RestoreOptions> = {}): Promise<FileRestore> => feed(sink(options(o)), Buffer.from(sql));

/** A pg_dump-like start, so that the bytes are sniffed as a PostgreSQL plain dump. */
const HEAD = '--\n-- PostgreSQL database dump\n--\n\nSET statement_timeout = 0;\nSET client_encoding = \'UTF8\';\n\n';

function account(name: string): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const f = line.split(':');
    if (f[0] === name) return { uid: Number(f[2]), gid: Number(f[3]) };
  }
  throw new Error(`no ${name} account`);
}

interface Victim {
  dir: string;
  data: string;
  /** postgres://postgres@/postgres?host=<dir>: a superuser URL (trust), the privileged --into. */
  url: string;
  sql(sql: string, db?: string): string;
  /** Several one-value queries, each in its database, through one psql: their values, in order. */
  many(queries: [sql: string, db: string][]): string[];
  stop(): Promise<void>;
}

/** The victim cluster: trust for every local connection, its socket open to every account on the machine. */
async function startVictim(): Promise<Victim> {
  const who = account('postgres');
  const dir = mkdtempSync('/tmp/backupctl-victim-');
  chmodSync(dir, 0o755);
  if (who) chownSync(dir, who.uid, who.gid);
  const data = path.join(dir, 'data');
  const init = spawnSync(path.join(BIN, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale', '-N'], { ...(who ?? {}), encoding: 'utf8' });
  if (init.status !== 0) throw new Error(init.stderr);
  const child: ChildProcess = spawn(path.join(BIN, 'postgres'), ['-D', data, '-k', dir, '-c', 'listen_addresses=', '-c', 'unix_socket_permissions=0777', '-F'], { stdio: ['ignore', 'pipe', 'pipe'], ...(who ?? {}) });
  await new Promise<void>((resolve, reject) => {
    let log = '';
    const on = (d: Buffer) => {
      log += d.toString();
      if (/ready to accept connections/.test(log)) resolve();
    };
    child.stdout!.on('data', on);
    child.stderr!.on('data', on);
    child.on('exit', (c) => reject(new Error(`victim exited ${c}: ${log}`)));
  });
  // psql of the installation, not Debian's /usr/bin/psql (pg_wrapper, a Perl script: 60-90 ms of start-up per call).
  const psql = (args: string[]) => {
    const r = spawnSync(path.join(BIN, 'psql'), ['-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', ...args], { env: { PATH: process.env.PATH, PGHOST: dir, PGUSER: 'postgres' }, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    return r.stdout.trim();
  };
  const sql = (text: string, db = 'postgres') => psql(['-d', db, '-c', text]);
  const many = (queries: [string, string][]) => {
    const args = ['-d', queries[0]![1]];
    queries.forEach(([text, db], i) => {
      if (i > 0 && db !== queries[i - 1]![1]) args.push('-c', `\\connect ${db}`);
      args.push('-c', text);
    });
    const lines = psql(args).split('\n');
    if (lines.length !== queries.length) throw new Error(`${queries.length} queries, ${lines.length} lines: ${lines.join('|')}`);
    return lines;
  };
  sql('CREATE DATABASE victim');
  sql('CREATE TABLE t (id int); INSERT INTO t VALUES (1), (2), (3);', 'victim');
  return {
    dir,
    data,
    url: `postgres://postgres@/postgres?host=${dir}`,
    sql,
    many,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGINT');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let victim: Victim;
let mark: string;
const ROLES = "SELECT string_agg(rolname, ',' ORDER BY rolname) FROM pg_roles WHERE rolname !~ '^pg_'";
const roles = () => victim.sql(ROLES);
const autoConf = () => readFileSync(path.join(victim.data, 'postgresql.auto.conf'), 'utf8');
let rolesBefore: string;
let autoBefore: string;

/**
 * What must hold after every hostile dump: nothing written, the victim as it was, nothing left behind. The
 * victim's values are read by one psql (each still checked on its own); `more` adds queries of the caller.
 */
function unharmed(more: [string, string][] = []): string[] {
  expect(existsSync(mark), `marker ${mark}`).toBe(false);
  const [rows, victimDb, pwnedVictim, scratch, pwnedPostgres, roleList, ...rest] = victim.many([
    ['SELECT count(*) FROM t', 'victim'],
    ["SELECT count(*) FROM pg_database WHERE datname = 'victim'", 'victim'],
    ["SELECT count(*) FROM pg_class WHERE relname = 'pwned'", 'victim'],
    ["SELECT count(*) FROM pg_database WHERE datname LIKE 'backupctl_restore_%'", 'victim'],
    ["SELECT count(*) FROM pg_class WHERE relname = 'pwned'", 'postgres'],
    [ROLES, 'postgres'],
    ...more,
  ]);
  expect(rows).toBe('3');
  expect(victimDb).toBe('1');
  expect(pwnedVictim).toBe('0');
  expect(pwnedPostgres).toBe('0');
  expect(roleList).toBe(rolesBefore);
  expect(autoConf()).toBe(autoBefore);
  // Cleanup: no scratch database, no throwaway login, no server, no PGlite child.
  expect(scratch).toBe('0');
  expect(activeEphemeralServers()).toEqual([]);
  expect([...livePglite]).toEqual([]);
  return rest;
}

beforeAll(async () => {
  victim = await startVictim();
  rolesBefore = roles();
  autoBefore = autoConf();
}, T);
afterAll(async () => {
  await victim?.stop();
});

const hostile: [string, (m: string, v: Victim) => string][] = [
  [
    'psql client command smuggled past the reader (standard_conforming_strings off, \\! after a string the reader thinks open)',
    (m) => `${HEAD}CREATE TABLE a (x text);\nSET standard_conforming_strings = off;\nSELECT 'a\\'';\n\\! id > ${m}\n-- ';\nINSERT INTO a VALUES ('x');\n`,
  ],
  ['COPY t TO stdout /* FROM stdin */; then client commands the reader takes for COPY data', (m) => `${HEAD}CREATE TABLE t (x int);\nCOPY t TO stdout /* FROM stdin */;\n\\! id > ${m}\n\\.\n`],
  [
    '\\c to the victim cluster smuggled past the reader, then a table written there',
    (_m, v) => `${HEAD}CREATE TABLE a (x int);\nSET standard_conforming_strings = off;\nSELECT 'a\\'';\n\\c dbname=victim host=${v.dir} user=postgres\n-- ';\nCREATE TABLE pwned (x int);\n`,
  ],
  ['COPY ... TO PROGRAM (the TO half of the refusal rule)', (m) => `${HEAD}CREATE TABLE t (x int);\nCOPY t TO PROGRAM 'id > ${m}';\n`],
  ['COPY ... TO/**/PROGRAM (a comment walks past the filter)', (m) => `${HEAD}CREATE TABLE t (x int);\nCOPY t TO/**/PROGRAM 'id > ${m}';\n`],
  ['COPY ... FROM PROGRAM (the FROM half)', (m) => `${HEAD}CREATE TABLE t (x text);\nCOPY t FROM PROGRAM 'id > ${m}; echo 1';\n`],
  ['DO + EXECUTE COPY ... TO PROGRAM', (m) => `${HEAD}DO $$BEGIN EXECUTE 'COPY (SELECT 1) TO PROGRAM ''id > ${m}'''; END$$;\n`],
  ['pg_read_file of a root-only file, written back out through COPY TO a server file', (m) => `${HEAD}CREATE TABLE s AS SELECT pg_read_file('/etc/shadow') AS x;\nCOPY s TO '${m}';\n`],
  ['COPY FROM a server file ($$-quoted), then out to another', (m) => `${HEAD}CREATE TABLE p (l text);\nCOPY p FROM $$/etc/passwd$$;\nCOPY p TO $$${m}$$;\n`],
  ['lo_import of a file, then lo_export', (m) => `${HEAD}SELECT lo_export(lo_import('/etc/passwd'), '${m}');\n`],
  ['dblink to the victim cluster on the machine (trust on its socket)', (_m, v) => `${HEAD}CREATE EXTENSION IF NOT EXISTS dblink;\nSELECT dblink_exec('host=${v.dir} user=postgres dbname=victim', 'DROP TABLE t');\nCREATE TABLE a (x int);\n`],
  ['postgres_fdw to the victim cluster', (_m, v) => `${HEAD}CREATE EXTENSION postgres_fdw;\nCREATE SERVER v FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '${v.dir}', dbname 'victim');\nCREATE USER MAPPING FOR CURRENT_USER SERVER v OPTIONS (user 'postgres');\nIMPORT FOREIGN SCHEMA public FROM SERVER v INTO public;\nDELETE FROM t;\n`],
];

describe('hostile dumps into the ephemeral local PostgreSQL: the escape does not happen', () => {
  test.each(hostile)(
    '%s',
    async (_name, make) => {
      mark = `/tmp/backupctl-hostile-${randomBytes(6).toString('hex')}`;
      try {
        const r = await restore(make(mark, victim), { engine: 'local' });
        unharmed();
        expect(r.verdict, JSON.stringify(r.failure)).toBe('failed');
        // The dump ran as a throwaway login, and the result says so.
        expect(r.engine?.rights).toMatch(/^throwaway login backupctl_r_[0-9a-f]{10}: no superuser/);
      } finally {
        rmSync(mark, { force: true });
      }
    },
    T,
  );
});

const againstServer: [string, (m: string, v: Victim) => string][] = [
  ['DROP/**/DATABASE victim', () => `${HEAD}DROP/**/DATABASE victim;\n`],
  ['CREATE/**/ROLE evil SUPERUSER', () => `${HEAD}CREATE/**/ROLE evil SUPERUSER LOGIN;\n`],
  ['a DO block running ALTER ROLE postgres', () => `${HEAD}DO $$BEGIN EXECUTE 'ALTER ROLE postgres RENAME TO pwned_admin'; END$$;\n`],
  ['a DO block creating a superuser', () => `${HEAD}DO $$BEGIN EXECUTE 'CREATE ROLE evil SUPERUSER LOGIN'; END$$;\n`],
  ['ALTER/**/SYSTEM', () => `${HEAD}ALTER/**/SYSTEM SET work_mem = '77MB';\n`],
  ['ALTER ROLE CURRENT_USER SET default_transaction_read_only (breaks every later test)', () => `${HEAD}CREATE TABLE a (x int);\nALTER ROLE CURRENT_USER SET default_transaction_read_only = on;\nSELECT 1/0;\n`],
  ['DROP TABLE in the administrator\'s database through a qualified name', () => `${HEAD}DO $$BEGIN PERFORM 1; END$$;\nDROP TABLE IF EXISTS postgres.public.t;\nGRANT pg_execute_server_program TO CURRENT_USER;\n`],
];

describe('hostile dumps against a privileged --into (a superuser URL): confined to the scratch database', () => {
  test.each([...againstServer, ...hostile])(
    '%s',
    async (_name, make) => {
      mark = `/tmp/backupctl-hostile-${randomBytes(6).toString('hex')}`;
      try {
        const r = await restore(make(mark, victim), { engine: 'server', into: victim.url });
        const [user, settings] = unharmed([
          ['SELECT current_user', 'postgres'],
          ["SELECT count(*) FROM pg_db_role_setting WHERE setrole = (SELECT oid FROM pg_roles WHERE rolname = 'postgres')", 'postgres'],
        ]);
        // The administrator still is who it was, and may still log in.
        expect(user).toBe('postgres');
        expect(settings).toBe('0');
        expect(r.engine?.rights).toMatch(/^throwaway login backupctl_r_/);
        expect(r.verdict).toBe('failed');
      } finally {
        rmSync(mark, { force: true });
      }
    },
    T,
  );

  test(
    'a dump that only needs what its login may do restores, and the login and database are gone afterwards',
    async () => {
      const r = await restore(`${HEAD}CREATE TABLE public.t (id int);\nCOPY public.t (id) FROM stdin;\n1\n2\n\\.\n`, { engine: 'server', into: victim.url });
      expect(r.failure).toBeNull();
      expect(r.tables).toEqual([{ table: 'public.t', expected: 2, restored: 2 }]);
      expect(r.engine?.rights).toMatch(/^throwaway login backupctl_r_[0-9a-f]{10}: /);
      expect(roles()).toBe(rolesBefore);
      expect(victim.sql("SELECT count(*) FROM pg_database WHERE datname LIKE 'backupctl_restore_%'")).toBe('0');
    },
    T,
  );

  test(
    'an allow-listed extension the login cannot create is made by the administrator first, with a warning; dblink is not',
    async () => {
      const warned: string[] = [];
      // hstore is trusted (the login makes it itself); tsm_system_rows too; pageinspect and dblink are not on the list.
      const r = await restore(`${HEAD}CREATE EXTENSION IF NOT EXISTS dblink;\nCREATE TABLE a (x int);\n`, { engine: 'server', into: victim.url, warn: (l) => warned.push(l) });
      expect(r.verdict).toBe('failed');
      expect(r.failure!.message).toMatch(/permission denied to create extension "dblink"/);
      expect(r.warnings.join('\n')).toMatch(/the dump creates extension dblink, which reaches files, programs or other servers: not created for it/);
      unharmed();
    },
    T,
  );

  test(
    'abort (Ctrl-C) with --into after more than 64 kB: the scratch database and the throwaway login are dropped',
    async () => {
      const ac = new AbortController();
      const s = sink(options({ engine: 'server', into: victim.url, signal: ac.signal }));
      // The content stage names the kind first (src/pipeline), then the decoded bytes follow.
      await s.open({ kind: 'pg-plain', gzip: false, encrypted: false });
      const row = 'x'.repeat(100) + '\n';
      await s.write(Buffer.from(`${HEAD}CREATE TABLE big (x text);\nCOPY big (x) FROM stdin;\n`));
      let sent = 0;
      const deadline = Date.now() + 60_000;
      while (sent < 200_000 || victim.sql("SELECT count(*) FROM pg_database WHERE datname LIKE 'backupctl_restore_%'") === '0') {
        expect(Date.now()).toBeLessThan(deadline);
        await s.write(Buffer.from(row.repeat(100)));
        sent += row.length * 100;
        // A turn of the event loop: the sink's clients need it (spawnSync above blocks it).
        await new Promise((r) => setTimeout(r, 5));
      }
      expect(victim.sql("SELECT count(*) FROM pg_roles WHERE rolname LIKE 'backupctl_r_%'")).toBe('1');
      const t0 = Date.now();
      ac.abort();
      await s.abort();
      expect(Date.now() - t0).toBeLessThan(1500);
      expect(victim.sql("SELECT count(*) FROM pg_database WHERE datname LIKE 'backupctl_restore_%'")).toBe('0');
      expect(victim.sql("SELECT count(*) FROM pg_roles WHERE rolname LIKE 'backupctl_r_%'")).toBe('0');
    },
    T,
  );

  test(
    'abort while the server still makes the scratch database (its CREATE DATABASE waits on a lock): once made, it and the login are dropped',
    async () => {
      // The test holds pg_database in SHARE mode: CREATE DATABASE (it inserts a row) waits, reading it does not.
      // Killing the psql that sent CREATE DATABASE did not stop the server: it made the database after our
      // DROP DATABASE IF EXISTS had found nothing, and both stayed (3 of 18 Ctrl-C in a sweep of delays).
      const locker = spawn(path.join(BIN, 'psql'), ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', 'postgres'], { env: { PATH: process.env.PATH, PGHOST: victim.dir, PGUSER: 'postgres' }, stdio: ['pipe', 'ignore', 'ignore'] });
      const lockerDone = new Promise((r) => locker.once('exit', r));
      try {
        locker.stdin!.write('BEGIN;\nLOCK TABLE pg_catalog.pg_database IN SHARE MODE;\n');
        await until(() => victim.sql("SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'pg_database' AND l.mode = 'ShareLock' AND l.granted") === '1', 30_000);
        const ac = new AbortController();
        const done = feed(sink(options({ engine: 'server', into: victim.url, signal: ac.signal })), Buffer.from(`${HEAD}CREATE TABLE a (x int);\n`)).then(
          (r) => r,
          (e: Error) => e,
        );
        await until(() => victim.sql("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'CREATE DATABASE%' AND wait_event_type = 'Lock'") === '1', 30_000);
        ac.abort();
        // What the abort does at once (it used to kill that psql and drop what it found) happens now.
        await new Promise((r) => setTimeout(r, 500));
        locker.stdin!.end('COMMIT;\n');
        await lockerDone;
        await done;
        expect(victim.sql("SELECT count(*) FROM pg_database WHERE datname LIKE 'backupctl_restore_%'")).toBe('0');
        expect(victim.sql("SELECT count(*) FROM pg_roles WHERE rolname LIKE 'backupctl_r_%'")).toBe('0');
      } finally {
        if (locker.exitCode === null) {
          locker.kill('SIGKILL');
          await lockerDone;
        }
      }
    },
    T,
  );

  test(
    'a signal aborted before the sink was made (Ctrl-C during the lookups): nothing is made on the server and nothing is restored',
    async () => {
      const ac = new AbortController();
      ac.abort();
      const r = await feed(sink(options({ engine: 'server', into: victim.url, signal: ac.signal })), Buffer.from(`${HEAD}CREATE TABLE a (x int);\n`)).then(
        (x) => x,
        (e: Error) => e,
      );
      expect(r instanceof Error ? 'aborted' : r.verdict).not.toBe('restored');
      expect(victim.sql("SELECT count(*) FROM pg_database WHERE datname LIKE 'backupctl_restore_%'")).toBe('0');
      expect(victim.sql("SELECT count(*) FROM pg_roles WHERE rolname LIKE 'backupctl_r_%'")).toBe('0');
    },
    T,
  );
});

describe('an --into user that cannot create roles', () => {
  test(
    'a user that is a member of another role (or owns another database) is refused unless --trust-into-user; the result names the rights',
    async () => {
      victim.sql("CREATE ROLE plain LOGIN CREATEDB PASSWORD 'plainpw'; CREATE ROLE readers; GRANT readers TO plain;");
      try {
        const url = `postgres://plain:plainpw@/postgres?host=${victim.dir}`;
        const dump = `${HEAD}CREATE TABLE a (x int);\nINSERT INTO a VALUES (1);\n`;
        const refused = await restore(dump, { engine: 'server', into: url });
        expect(refused.verdict).toBe('failed');
        expect(refused.failure!.message).toMatch(/--into user plain reaches more than what it creates \(member of readers\).*--trust-into-user/);
        const trusted = await restore(dump, { engine: 'server', into: url, trustIntoUser: true });
        expect(trusted.failure).toBeNull();
        expect(trusted.engine?.rights).toBe('the --into user plain (--trust-into-user: member of readers)');
        victim.sql('REVOKE readers FROM plain');
        const checked = await restore(`${dump}ALTER/**/ROLE CURRENT_USER SET default_transaction_read_only = on;\n`, { engine: 'server', into: url });
        expect(checked.engine?.rights).toMatch(/^the --into user plain: no superuser, CREATEROLE, REPLICATION, BYPASSRLS or role membership, owns no other database \(checked\)/);
        // The dump changed its own role's settings: put back, and said.
        expect(checked.warnings.join('\n')).toMatch(/the dump changed the settings of the --into user/);
        expect(victim.sql("SELECT count(*) FROM pg_db_role_setting WHERE setrole = (SELECT oid FROM pg_roles WHERE rolname = 'plain')")).toBe('0');
      } finally {
        victim.sql('DROP ROLE IF EXISTS plain; DROP ROLE IF EXISTS readers;');
      }
    },
    T,
  );
});

describe('PGlite runs where it can be stopped', () => {
  test(
    'COPY t TO/**/PROGRAM spins PGlite: --timeout (the signal) ends it within a second, no child left, no marker',
    async () => {
      mark = `/tmp/backupctl-hostile-${randomBytes(6).toString('hex')}`;
      const ac = new AbortController();
      const s = sink(options({ engine: 'embedded', signal: ac.signal }));
      const done = feed(s, Buffer.from(`${HEAD}CREATE TABLE t (x int);\nCOPY t TO/**/PROGRAM 'id > ${mark}';\nCREATE TABLE after (x int);\n`)).catch((e: unknown) => e);
      const deadline = Date.now() + 60_000;
      while (livePglite.size === 0) {
        expect(Date.now()).toBeLessThan(deadline);
        await new Promise((r) => setTimeout(r, 50));
      }
      const pids = [...livePglite];
      await new Promise((r) => setTimeout(r, 3000));
      const t0 = Date.now();
      ac.abort();
      await s.abort();
      expect(Date.now() - t0).toBeLessThan(1000);
      for (const pid of pids) expect(pidAlive(pid)).toBe(false);
      expect([...livePglite]).toEqual([]);
      expect(existsSync(mark)).toBe(false);
      await done;
    },
    T,
  );
});

describe('counts of the tables the dump really loaded', () => {
  test(
    'a table holding MORE rows than the dump fails the test',
    async () => {
      const r = await restore(`${HEAD}CREATE TABLE public.t (id int);\nCOPY public.t (id) FROM stdin;\n1\n2\n\\.\nDO $$BEGIN INSERT INTO public.t VALUES (3); END$$;\n`, { engine: 'local' });
      expect(r.verdict).toBe('failed');
      expect(r.failure!.message).toBe('public.t: the dump holds 2 rows, the restored table 3');
    },
    T,
  );

  test(
    'a COPY that lands in s.t through search_path (a trigger empties it) is counted as s.t and fails, not as the 5 rows of public.t; a pre-10.3 dump counts',
    async () => {
      const r = await restore(
        `${HEAD}CREATE SCHEMA s;\nCREATE TABLE public.t (x int);\nINSERT INTO public.t VALUES (1), (2), (3), (4), (5);\nCREATE TABLE s.t (x int);\n` +
          `CREATE FUNCTION s.empty() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN DELETE FROM s.t; RETURN NULL; END$$;\n` +
          `CREATE TRIGGER e AFTER INSERT ON s.t FOR EACH STATEMENT EXECUTE FUNCTION s.empty();\nSET search_path = s, pg_catalog;\nCOPY t (x) FROM stdin;\n1\n2\n\\.\n`,
        { engine: 'local' },
      );
      expect(r.verdict).toBe('failed');
      expect(r.failure!.message).toBe('s.t: the dump holds 2 rows, the restored table 0');
      const old = await restore(`${HEAD}CREATE SCHEMA app;\nSET search_path = app, pg_catalog;\nCREATE TABLE t (x int);\nCOPY t (x) FROM stdin;\n1\n2\n\\.\n`, { engine: 'local' });
      expect(old.failure).toBeNull();
      expect(old.tables).toEqual([{ table: 'app.t', expected: 2, restored: 2 }]);
    },
    T,
  );

  test(
    'a COPY block ending \\.\\r\\n (a CRLF dump) restores and counts',
    async () => {
      const crlf = `${HEAD}CREATE TABLE public.t (id int, s text);\nCOPY public.t (id, s) FROM stdin;\n1\ta\n2\tb\n\\.\nCOPY public.t (id, s) FROM stdin;\n3\tc\n\\.\n`.replace(/\n/g, '\r\n');
      const r = await restore(crlf, { engine: 'local' });
      expect(r.failure).toBeNull();
      expect(r.tables).toEqual([{ table: 'public.t', expected: 3, restored: 3 }]);
    },
    T,
  );

  test(
    'a dump of 1 MB read across the sink\'s chunk boundaries (8 kB writes, past its 64 kB head): every row counted',
    async () => {
      const rows = Array.from({ length: 20_000 }, (_, i) => `${i}\t${'r'.repeat(40)}\n`).join('');
      const inserts = Array.from({ length: 2_000 }, (_, i) => `INSERT INTO public.u VALUES (${i}, 'a;b'), (${i}, '--x');\n`).join('');
      const r = await restore(`${HEAD}CREATE TABLE public.t (id int, s text);\nCREATE TABLE public.u (id int, s text);\nCOPY public.t (id, s) FROM stdin;\n${rows}\\.\n${inserts}`, { engine: 'local' });
      expect(r.failure).toBeNull();
      expect(r.tables).toEqual([
        { table: 'public.t', expected: 20_000, restored: 20_000 },
        { table: 'public.u', expected: 4_000, restored: 4_000 },
      ]);
    },
    T,
  );
});

describe('nothing left behind, at any signal (the built CLI against the emulator)', () => {
  const { emu, env } = emulatorSession({ seed: 'demo', archiveFaults: true });

  /** The postgres server started by a running CLI (a direct child), and its folder. */
  const serverOf = (pid: number): { pid: number; cwd: string } | null => {
    for (const p of childPids(pid)) {
      try {
        // The server, not the single-user step that sets the password of a cluster copied from the template,
        // nor that step ended and not yet reaped (a zombie: its command line is empty).
        const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
        if (readFileSync(`/proc/${p}/comm`, 'utf8').trim() === 'postgres' && cmd.includes('-D') && !cmd.includes('--single')) {
          return { pid: Number(p), cwd: readlinkSync(`/proc/${p}/cwd`) };
        }
      } catch {
        /* gone */
      }
    }
    return null;
  };

  test.each(['SIGKILL', 'SIGINT', 'SIGTERM'] as const)(
    '%s of backupctl during a local restore: the server and its folder are gone within seconds (SIGINT/SIGTERM: within one second of the exit)',
    async (signal) => {
      emu.setFaults([{ fault: 'slow-body', path: '/files/' }]);
      try {
        const run = startCli(['restore-test', 'pg custom'], env(), 90_000);
        let server: { pid: number; cwd: string } | null = null;
        await until(() => (server = serverOf(run.child.pid!)) !== null, 60_000);
        const { pid, cwd } = server!;
        // The server runs as an account that owns nothing (nobody as root), never the machine's postgres.
        const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
        if (process.getuid?.() === 0) expect(uid).toBe(Number(spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).stdout.trim()));
        expect(uid).not.toBe(Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim() || -1));
        const t0 = Date.now();
        run.child.kill(signal);
        const r = await run.done;
        const exitMs = Date.now() - t0;
        if (signal !== 'SIGKILL') {
          expect(r.code, r.stderr).toBe(signal === 'SIGINT' ? 130 : 143);
          expect(exitMs).toBeLessThan(1500);
          expect(pidAlive(pid)).toBe(false);
          expect(existsSync(cwd)).toBe(false);
        } else {
          await until(() => !pidAlive(pid) && !existsSync(cwd), 5_000);
        }
        expect(pidAlive(pid)).toBe(false);
        expect(existsSync(cwd)).toBe(false);
      } finally {
        emu.setFaults([]);
      }
    },
    T,
  );
});

test('the next run finds a folder whose backupctl is gone, stops its server and says so', async () => {
  const dir = mkdtempSync('/tmp/backupctl-restore-');
  mkdirSync(path.join(dir, 'data'));
  // A "server" whose command line names the folder, as postgres -D <dir>/data does; its owner a pid that is gone.
  const fake = spawn('/bin/sh', ['-c', 'sleep 300; :', path.join(dir, 'data')], { stdio: 'ignore' });
  const gone = spawnSync('/bin/true');
  writeFileSync(path.join(dir, 'data/postmaster.pid'), `${fake.pid}\n${dir}/data\n`);
  writeFileSync(path.join(dir, 'backupctl-owner'), `${gone.pid} 1\n`);
  const { sweepOrphans } = await import('../../src/restore/servers/ephemeral.js');
  const said = await sweepOrphans();
  expect(said).toContain(`stopped an orphaned ephemeral server (pid ${fake.pid}) and removed ${dir}: the backupctl that started it (pid ${gone.pid}) is gone`);
  await until(() => !pidAlive(fake.pid!), 5_000);
  expect(existsSync(dir)).toBe(false);
});
