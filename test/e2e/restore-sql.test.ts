// Issue 24 §2-3, §6: SQL dumps restored into REAL servers through the code
// users run (createSqlRestoreSink): ephemeral local PostgreSQL and MariaDB
// started by our code, --into servers this test starts itself with their own
// user and password, PGlite, and each fault of §5 seen failing. The fixtures
// are real pg_dump / mariadb-dump output (src/scripts/make-restore-fixtures.mjs).
// No skips: CI installs postgresql and mariadb-server (.ci/run).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DispatchSink } from '../../src/restore/dispatch.js';
import { NoRestoreEngineError } from '../../src/restore/sql/engine.js';
import { activeEphemeralServers } from '../../src/restore/servers/ephemeral.js';
import type { RestoreOptions } from '../../src/restore/types.js';
import { feed, fixture, manifest, options, pidAlive, startTestMariadb, startTestPostgres, type TestServer } from '../helpers/restore.js';

const T = 120_000;

/** A dump's sink as restore-test makes it: the dispatcher gunzips and sniffs, the SQL sink gets decoded bytes and their kind. */
const sqlSink = (o: RestoreOptions) => new DispatchSink({ ...o, encrypted: false });

/** Samples every process's argv (/proc/<pid>/cmdline) while a restore runs: the password must never be there. */
function watchArgv(secret: string): { stop(): { sampled: number; leaked: string[] } } {
  const leaked = new Set<string>();
  let sampled = 0;
  const timer = setInterval(() => {
    sampled++;
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (argv.includes(secret)) leaked.add(argv.replace(/\0/g, ' '));
      } catch {
        /* gone */
      }
    }
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      return { sampled, leaked: [...leaked] };
    },
  };
}

function tablesOf(r: { tables: { table: string; expected: number; restored: number | null }[] }): Record<string, [number, number | null]> {
  return Object.fromEntries(r.tables.map((t) => [t.table, [t.expected, t.restored]]));
}

function expectAllRows(r: { tables: { table: string; expected: number; restored: number | null }[] }, want: Record<string, number>): void {
  const got = tablesOf(r);
  for (const [name, rows] of Object.entries(want)) expect(got[name], name).toEqual([rows, rows]);
}

describe('ephemeral local PostgreSQL', () => {
  test(
    'a real pg_dump plain file restores, every table holds its COPY rows, --assert passes, OWNER TO skipped with a warning',
    async () => {
      const warned: string[] = [];
      const sink = sqlSink(options({ engine: 'local', asserts: ['select count(*) = 150 from public.orders', "select sum(qty) from public.order_items where order_id < 3"], warn: (l) => warned.push(l) }));
      const r = await feed(sink, fixture('shop.pg.sql.gz'));
      expect(r.failure).toBeNull();
      expect(r.verdict).toBe('restored');
      expect(r.kind).toBe('pg-plain');
      expect(r.engine).toMatchObject({ name: 'postgres', runs: 'local', product: 'PostgreSQL' });
      expect(r.engine!.version).toMatch(/^\d+\.\d+/);
      expect(r.database).toMatch(/^backupctl_restore_[0-9a-f]{10}$/);
      expectAllRows(r, manifest.files['shop.pg.sql.gz']!.tables!);
      expect(r.rows).toBe(550);
      expect(r.assertions).toEqual([
        { sql: 'select count(*) = 150 from public.orders', ok: true, value: 't' },
        { sql: 'select sum(qty) from public.order_items where order_id < 3', ok: true, value: expect.stringMatching(/^\d+$/) },
      ]);
      expect(r.warnings.join('\n')).toMatch(/OWNER TO .*: \d+ times, first at line \d+/);
      expect(warned.some((w) => /OWNER TO/.test(w))).toBe(true);
      expect(r.restore_seconds).toBeGreaterThan(0);
      expect(activeEphemeralServers()).toEqual([]);
    },
    T,
  );

  test(
    'a real pg_dump custom-format file (PGDMP) restores through pg_restore',
    async () => {
      const r = await feed(sqlSink(options({ engine: 'local' })), fixture('shop.pgdump'));
      expect(r.failure).toBeNull();
      expect(r.kind).toBe('pg-custom');
      expectAllRows(r, manifest.files['shop.pgdump']!.tables!);
    },
    T,
  );

  test(
    'a failed --assert fails the restore and shows the query and what it returned',
    async () => {
      const r = await feed(sqlSink(options({ engine: 'local', asserts: ['select count(*) > 1000 from public.orders', 'select nosuchcolumn from public.orders'] })), fixture('shop.pg.sql.gz'));
      expect(r.verdict).toBe('failed');
      expect(r.assertions[0]).toEqual({ sql: 'select count(*) > 1000 from public.orders', ok: false, value: 'f' });
      expect(r.assertions[1]).toMatchObject({ ok: false, value: null, error: expect.stringMatching(/column "nosuchcolumn" does not exist/) });
      expect(r.failure!.message).toBe('--assert returned f, not true: select count(*) > 1000 from public.orders');
    },
    T,
  );

  test(
    'fault: a dump that breaks halfway fails with the engine message and its line in the dump',
    async () => {
      const meta = manifest.files['broken.pg.sql.gz']!;
      const r = await feed(sqlSink(options({ engine: 'local' })), fixture('broken.pg.sql.gz'));
      expect(r.verdict).toBe('failed');
      expect(r.failure).toMatchObject({ message: meta.error, line: meta.error_line });
      expect(r.failure!.statement).toMatch(/^CREATE TABLEX broken_halfway/);
    },
    T,
  );

  test(
    'fault: a table missing rows compared with its own COPY block fails the row check',
    async () => {
      const meta = manifest.files['missing-rows.pg.sql.gz']!;
      const r = await feed(sqlSink(options({ engine: 'local' })), fixture('missing-rows.pg.sql.gz'));
      expect(r.verdict).toBe('failed');
      expect(tablesOf(r)[meta.short_table!]).toEqual([150, meta.restored_rows]);
      expect(r.failure!.message).toBe(`public.orders: the dump holds 150 rows, the restored table ${meta.restored_rows}`);
    },
    T,
  );

  test(
    'fault: a dump that needs roles the target lacks passes, with the OWNER TO and GRANT skips as warnings',
    async () => {
      const r = await feed(sqlSink(options({ engine: 'local' })), fixture('needs-role.pg.sql.gz'));
      expect(r.failure).toBeNull();
      expect(r.verdict).toBe('restored');
      const w = r.warnings.join('\n');
      expect(w).toMatch(/OWNER TO/);
      expect(w).toMatch(/GRANT\/REVOKE/);
    },
    T,
  );

  test(
    "pg_dump 17's SET transaction_timeout and an extension the server lacks are skipped on PostgreSQL 15 with warnings; a psql \\! line is refused",
    async () => {
      const text = gunzipSync(fixture('shop.pg.sql.gz')).toString('utf8');
      // As pg_dump 17 writes it, on the line after statement_timeout (line numbers below it shift by two).
      const newer = text.replace('SET statement_timeout = 0;\n', 'SET statement_timeout = 0;\nSET transaction_timeout = 0;\nCREATE EXTENSION IF NOT EXISTS no_such_extension WITH SCHEMA public;\n');
      const r = await feed(sqlSink(options({ engine: 'local' })), Buffer.from(newer));
      expect(r.failure).toBeNull();
      const line = newer.split('\n').indexOf('SET transaction_timeout = 0;') + 1;
      expect(r.warnings).toContain(`skipped SET transaction_timeout (the target server has no such parameter) (line ${line})`);
      expect(r.warnings).toContain(`skipped CREATE EXTENSION no_such_extension (not available on the target server) (line ${line + 1})`);
      const evil = text.replace('SET lock_timeout = 0;\n', 'SET lock_timeout = 0;\n\\! touch /tmp/backupctl-pwned\n');
      const bad = await feed(sqlSink(options({ engine: 'local' })), Buffer.from(evil));
      expect(bad.verdict).toBe('failed');
      expect(bad.failure).toMatchObject({ message: 'psql meta-command \\! inside a \\restrict block: refused, as psql refuses it', line: evil.split('\n').indexOf('\\! touch /tmp/backupctl-pwned') + 1 });
      expect(existsSync('/tmp/backupctl-pwned')).toBe(false);
    },
    T,
  );

  test(
    'restart() (the server ignored Range): what was restored is dropped, the file restores again from its first byte',
    async () => {
      const sink = sqlSink(options({ engine: 'local' }));
      const plain = gunzipSync(fixture('shop.pg.sql.gz'));
      // Past the 64 kB the sink reads before it starts the server: part of the dump is in.
      await sink.write(Buffer.concat([plain, plain]).subarray(0, 70_000));
      sink.restart();
      const r = await feed(sink, fixture('shop.pg.sql.gz'));
      expect(r.failure).toBeNull();
      expectAllRows(r, manifest.files['shop.pg.sql.gz']!.tables!);
      expect(activeEphemeralServers()).toEqual([]);
    },
    T,
  );

  test(
    'abort in the middle of a restore leaves no server process and no temporary folder',
    async () => {
      const sink = sqlSink(options({ engine: 'local' }));
      // The content stage names the kind first (as src/pipeline does), then the decoded bytes follow.
      await sink.open({ kind: 'pg-plain', gzip: false, encrypted: false });
      // A dump that keeps the server busy: a COPY block that goes on until the abort.
      await sink.write(Buffer.from('CREATE TABLE big (a int, b text);\nCOPY big (a, b) FROM stdin;\n'));
      let n = 0;
      const rows = () => Buffer.from(Array.from({ length: 5000 }, () => `${n++}\trow ${n}\n`).join(''));
      const deadline = Date.now() + 60_000;
      // Until the server runs (a real pid: a folder being set up is listed with pid -1), then 1,000,000 rows
      // more (14 MB): past what the sink holds while the engine opens (8 MiB), so the COPY is under way.
      let from = -1;
      while (from < 0 || n - from < 1_000_000) {
        expect(Date.now()).toBeLessThan(deadline);
        await sink.write(rows());
        if (from < 0 && activeEphemeralServers().some((s) => s.pid > 0)) from = n;
        if (from < 0) await new Promise((r) => setTimeout(r, 50));
      }
      const running = activeEphemeralServers();
      expect(running).toHaveLength(1);
      const { pid, dir } = running[0]!;
      expect(pidAlive(pid)).toBe(true);
      expect(existsSync(dir)).toBe(true);
      await sink.abort('SIGINT');
      expect(pidAlive(pid)).toBe(false);
      expect(existsSync(dir)).toBe(false);
      expect(activeEphemeralServers()).toEqual([]);
    },
    T,
  );
});

describe('abort while the ephemeral server starts', () => {
  test(
    'MariaDB: abort during mariadb-install-db / mariadbd start leaves no process and no folder',
    async () => {
      // This process's own folder (other test files start servers in /tmp at the same time).
      expect(activeEphemeralServers()).toEqual([]);
      const sink = sqlSink(options({ engine: 'local' }));
      await sink.open({ kind: 'mysql', gzip: false, encrypted: false });
      // 64 kB of dump: the sink knows its kind and starts the server in the background.
      const head = Buffer.from(`-- MariaDB dump 10.19\n${'INSERT INTO t VALUES (1);\n'.repeat(3000)}`);
      const writing = sink.write(head).catch(() => {});
      const deadline = Date.now() + 30_000;
      while (activeEphemeralServers().length === 0) {
        expect(Date.now()).toBeLessThan(deadline);
        await new Promise((r) => setTimeout(r, 20));
      }
      const { dir } = activeEphemeralServers()[0]!;
      await sink.abort();
      await writing;
      await new Promise((r) => setTimeout(r, 300));
      expect(activeEphemeralServers()).toEqual([]);
      expect(existsSync(dir)).toBe(false);
    },
    T,
  );
});

describe('the ephemeral PostgreSQL leaves nothing in /dev/shm', () => {
  test(
    'its dynamic shared memory lives in its data folder, and Ctrl-C (an immediate shutdown) leaves no PostgreSQL.<n> segment',
    async () => {
      expect(activeEphemeralServers()).toEqual([]);
      const sink = sqlSink(options({ engine: 'local' }));
      await sink.open({ kind: 'pg-plain', gzip: false, encrypted: false });
      const head = Buffer.from(`--\n-- PostgreSQL database dump\n--\n${'SELECT 1;\n'.repeat(8000)}`);
      const writing = sink.write(head).catch(() => {});
      // The server up: its control segment, mmap.<handle>, is in its data folder (before: /dev/shm/PostgreSQL.<handle>).
      const deadline = Date.now() + 60_000;
      let segment: string | undefined;
      let dir = '';
      while (segment === undefined) {
        expect(Date.now(), 'no mmap.<n> in the data folder: the server keeps its dynamic shared memory elsewhere').toBeLessThan(deadline);
        await new Promise((r) => setTimeout(r, 50));
        const active = activeEphemeralServers()[0];
        if (!active) continue;
        dir = active.dir;
        const shm = `${dir}/data/pg_dynshmem`;
        segment = existsSync(shm) ? readdirSync(shm).find((f) => /^mmap\.\d+$/.test(f)) : undefined;
      }
      const handle = segment.slice('mmap.'.length);
      await sink.abort();
      await writing;
      expect(activeEphemeralServers()).toEqual([]);
      expect(existsSync(dir)).toBe(false);
      expect(existsSync(`/dev/shm/PostgreSQL.${handle}`)).toBe(false);
    },
    T,
  );
});

describe('ephemeral local MariaDB', () => {
  test(
    'a real mariadb-dump --databases file restores into the scratch database: USE and CREATE DATABASE skipped, DEFINER removed, every INSERT tuple counted',
    async () => {
      const r = await feed(sqlSink(options({ engine: 'local', asserts: ['SELECT COUNT(*) = 150 FROM orders'] })), fixture('shop.mysql.sql.gz'));
      expect(r.failure).toBeNull();
      expect(r.verdict).toBe('restored');
      expect(r.engine).toMatchObject({ name: 'mysql', runs: 'local', product: 'MariaDB' });
      expectAllRows(r, manifest.files['shop.mysql.sql.gz']!.tables!);
      expect(r.assertions[0]).toMatchObject({ ok: true, value: '1' });
      const w = r.warnings.join('\n');
      expect(w).toMatch(/skipped USE shop/);
      expect(w).toMatch(/skipped CREATE DATABASE shop/);
      expect(w).toMatch(/DEFINER/);
    },
    T,
  );

  test(
    'fault: a syntax error halfway fails with the server message and its line in the dump',
    async () => {
      const meta = manifest.files['broken.mysql.sql.gz']!;
      const r = await feed(sqlSink(options({ engine: 'local' })), fixture('broken.mysql.sql.gz'));
      expect(r.verdict).toBe('failed');
      expect(r.failure!.message).toContain(meta.error);
      expect(r.failure!.line).toBe(meta.error_line);
    },
    T,
  );

  test(
    'a dump of several databases is refused: nothing reaches another database',
    async () => {
      const r = await feed(sqlSink(options({ engine: 'local' })), fixture('two-databases.mysql.sql.gz'));
      expect(r.verdict).toBe('failed');
      expect(r.failure!.message).toMatch(/^the dump holds several databases \(shop, shop_archive\)/);
    },
    T,
  );
});

describe('--into a server the test started, with its own user and password', () => {
  const password = 'S3cret-pw_9';
  let pg: TestServer;
  let my: TestServer;
  beforeAll(async () => {
    // Each server kept as soon as it is up: when the other fails to start, afterAll still stops this one
    // (destructuring Promise.all's answer left a started PostgreSQL running, and its folder, when MariaDB failed).
    const [p, m] = await Promise.allSettled([startTestPostgres(password), startTestMariadb(password)]);
    if (p.status === 'fulfilled') pg = p.value;
    if (m.status === 'fulfilled') my = m.value;
    for (const s of [p, m]) if (s.status === 'rejected') throw s.reason;
  }, T);
  afterAll(async () => {
    await Promise.all([pg?.stop(), my?.stop()]);
  }, T);

  test(
    'PostgreSQL: a fresh backupctl_restore_* database, restored, checked, dropped; the password nowhere',
    async () => {
      const warned: string[] = [];
      const seen = watchArgv(password);
      const r = await feed(sqlSink(options({ engine: 'server', into: pg.url, warn: (l) => warned.push(l) })), fixture('shop.pg.sql.gz'));
      expect(seen.stop()).toEqual({ sampled: expect.any(Number), leaked: [] });
      expect(r.failure).toBeNull();
      expect(r.engine).toMatchObject({ name: 'postgres', runs: 'server', product: 'PostgreSQL' });
      expectAllRows(r, manifest.files['shop.pg.sql.gz']!.tables!);
      expect(pg.admin("SELECT count(*) FROM pg_database WHERE datname LIKE 'backupctl_restore_%'").trim()).toBe('0');
      expect(JSON.stringify(r) + warned.join('')).not.toContain(password);
    },
    T,
  );

  test(
    'PostgreSQL --keep keeps the scratch database',
    async () => {
      const r = await feed(sqlSink(options({ engine: 'auto', into: pg.url, keep: true })), fixture('shop.pgdump'));
      expect(r.failure).toBeNull();
      expect(pg.admin(`SELECT count(*) FROM pg_database WHERE datname = '${r.database}'`).trim()).toBe('1');
      pg.admin(`DROP DATABASE ${r.database}`);
    },
    T,
  );

  test(
    'MariaDB: restored into a scratch database, dropped afterwards',
    async () => {
      const seen = watchArgv(password);
      const r = await feed(sqlSink(options({ engine: 'server', into: my.url })), fixture('shop.mysql.sql.gz'));
      expect(seen.stop()).toEqual({ sampled: expect.any(Number), leaked: [] });
      expect(r.failure).toBeNull();
      expect(r.engine).toMatchObject({ name: 'mysql', runs: 'server', product: 'MariaDB' });
      expectAllRows(r, manifest.files['shop.mysql.sql.gz']!.tables!);
      expect(my.admin("SHOW DATABASES LIKE 'backupctl_restore_%'").trim()).toBe('');
      expect(my.admin("SHOW DATABASES LIKE 'shop'").trim()).toBe('');
      expect(JSON.stringify(r)).not.toContain(password);
    },
    T,
  );

  test(
    'fault: a wrong password or an unreachable server fails with the reason, never the password',
    async () => {
      const wrong = pg.url.replace(encodeURIComponent(password), 'wrong-pw-123');
      const r = await feed(sqlSink(options({ engine: 'server', into: wrong })), fixture('shop.pg.sql.gz'));
      expect(r.verdict).toBe('failed');
      expect(r.failure!.message).toMatch(/^cannot connect to PostgreSQL: .*password authentication failed for user "tester"/);
      expect(JSON.stringify(r)).not.toContain('wrong-pw-123');
      const gone = await feed(sqlSink(options({ engine: 'server', into: `postgres://tester:${password}@/postgres?host=/nonexistent-dir` })), fixture('shop.pg.sql.gz'));
      expect(gone.failure!.message).toMatch(/^cannot connect to PostgreSQL: .*\/nonexistent-dir/);
      expect(JSON.stringify(gone)).not.toContain(password);
    },
    T,
  );
});

describe('embedded PGlite', () => {
  test(
    'a pg_dump plain file restores into PGlite: \\restrict handled, COPY through /dev/blob, rows checked',
    async () => {
      const r = await feed(sqlSink(options({ engine: 'embedded', asserts: ['select count(*) = 60 from public.customers'] })), fixture('shop.pg.sql.gz'));
      expect(r.failure).toBeNull();
      expect(r.engine).toMatchObject({ name: 'postgres', runs: 'embedded', product: 'PGlite' });
      expectAllRows(r, manifest.files['shop.pg.sql.gz']!.tables!);
      expect(r.assertions[0]!.ok).toBe(true);
      const b = await feed(sqlSink(options({ engine: 'embedded' })), fixture('missing-rows.pg.sql.gz'));
      expect(b.failure!.message).toBe('public.orders: the dump holds 150 rows, the restored table 135');
    },
    T,
  );
});

describe('no engine', () => {
  test('a MySQL dump with --engine embedded: exit 15 naming the three ways', async () => {
    const sink = sqlSink(options({ engine: 'embedded' }));
    const err = await feed(sink, fixture('shop.mysql.sql.gz')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NoRestoreEngineError);
    expect((err as NoRestoreEngineError).exitCode).toBe(15);
    const text = [(err as Error).message, ...(err as NoRestoreEngineError).details].join('\n');
    expect(text).toMatch(/apt-get install mariadb-server/);
    expect(text).toMatch(/--into mysql:\/\//);
    expect(text).toMatch(/npm install -g @electric-sql\/pglite/);
  });
});
