// backupctl restore-test of SQL dumps, through the built CLI against the
// emulator's real dumps (pg_dump and mariadb-dump output, src/emulator/fixtures/restore):
// ephemeral local PostgreSQL and MariaDB started by the code users run, a
// custom-format dump through pg_restore, --into a server this test starts with
// its own user and password, the embedded PGlite, each fault of issue 24 §5
// with its exit code and the dump's line, a failed --assert, an unreachable
// --into, and Ctrl-C in the middle leaving no server process and no folder.
// No skips: CI installs postgresql and mariadb-server (.ci/run).
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { emulatorSession, startTestEmulator } from '../helpers/emulator.js';
import { manifest, pidAlive, startTestMariadb, startTestPostgres, type TestServer } from '../helpers/restore.js';
import { childPids, startCli, until } from '../helpers/spawn.js';

type Json = any;
const T = 120_000;

const { emu, env, cli } = emulatorSession({ seed: 'demo', archiveFaults: true, timeoutMs: 100_000 });
const fileOf = (stdout: string): Json => JSON.parse(stdout).backups[0].files[0];
const tables = (f: Json) => Object.fromEntries(f.tables.map((t: Json) => [t.table, [t.expected, t.restored]]));
const allRows = (want: Record<string, number>) => Object.fromEntries(Object.entries(want).map(([t, n]) => [t, [n, n]]));

describe('restore-test: SQL dumps into ephemeral local servers', () => {
  it('the demo "api postgres" (a real pg_dump plain file) restores into a local PostgreSQL: every table\'s rows counted, --assert passes, OWNER TO skipped with a warning', async () => {
    const r = await cli(['restore-test', 'api postgres', '--assert', 'select count(*) = 150 from public.orders', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const f = fileOf(r.stdout);
    expect(f).toMatchObject({ kind: 'pg-plain', verdict: 'restored', engine: { mode: 'local', product: 'PostgreSQL' }, check: { verdict: 'verified', format: 'pg_dump.gz' }, rows: 550, failure: null });
    expect(tables(f)).toEqual(allRows(manifest.files['shop.pg.sql.gz']!.tables!));
    expect(f.assertions).toEqual([{ sql: 'select count(*) = 150 from public.orders', ok: true, value: 't' }]);
    expect(f.warnings.join('\n')).toMatch(/OWNER TO .*first at line \d+/);
    expect(f.restore_seconds).toBeGreaterThan(0);
    expect(f.read_seconds).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/^warning: skipped ALTER \.\.\. OWNER TO/m);
  }, T);

  it('the table shows the rows, the engine and the time to restore', async () => {
    const r = await cli(['restore-test', 'api postgres', '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/restored\s+api-postgres-\S+\.sql\.gz\s+PostgreSQL \d+\.\d+ \(local\)\s+4\s+550\b/);
    expect(r.stdout).toMatch(/restore test passed, 4 tables, 550 rows/);
  }, T);

  it('a pg_dump custom-format file (PGDMP) restores through pg_restore', async () => {
    const r = await cli(['restore-test', 'pg custom', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const f = fileOf(r.stdout);
    expect(f).toMatchObject({ kind: 'pg-custom', verdict: 'restored', engine: { mode: 'local', product: 'PostgreSQL' }, rows: 550 });
    expect(tables(f)).toEqual(allRows(manifest.files['shop.pgdump']!.tables!));
  }, T);

  it('a mariadb-dump file restores into a local MariaDB; its CREATE DATABASE and USE never leave the scratch database', async () => {
    const r = await cli(['restore-test', 'mariadb dump', '--assert', 'select count(*) = 300 from order_items', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const f = fileOf(r.stdout);
    expect(f).toMatchObject({ kind: 'mysql', verdict: 'restored', engine: { mode: 'local', product: 'MariaDB' }, rows: 550 });
    expect(tables(f)).toEqual(allRows(manifest.files['shop.mysql.sql.gz']!.tables!));
    expect(f.assertions[0]).toMatchObject({ ok: true, value: '1' });
    expect(f.warnings.join('\n')).toMatch(/skipped CREATE DATABASE shop \(restored into the scratch database backupctl_restore_/);
  }, T);

  it('--engine embedded restores the demo\'s pg_dump into PGlite', async () => {
    const r = await cli(['restore-test', 'api postgres', '--engine', 'embedded', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const f = fileOf(r.stdout);
    expect(f).toMatchObject({ kind: 'pg-plain', verdict: 'restored', engine: { mode: 'embedded', product: 'PGlite' }, rows: 550 });
    expect(tables(f)).toEqual(allRows(manifest.files['shop.pg.sql.gz']!.tables!));
  }, T);
});

describe('restore-test: the faults of issue 24 §5', () => {
  it('a dump that breaks halfway: exit 14, the engine\'s message and the line in the dump', async () => {
    const meta = manifest.files['broken.pg.sql.gz']!;
    const r = await cli(['restore-test', 'broken dump']);
    expect(r.code, r.stderr).toBe(14);
    expect(r.stderr).toContain(`error: the restore test of job broken dump failed: ${meta.error}`);
    expect(r.stderr).toContain(`${meta.error} (line ${meta.error_line})`);
  }, T);

  it('a MySQL dump that breaks halfway: exit 14, the line in the dump', async () => {
    const meta = manifest.files['broken.mysql.sql.gz']!;
    const r = await cli(['restore-test', 'broken mysql', '--json']);
    expect(r.code, r.stderr).toBe(14);
    expect(fileOf(r.stdout).failure).toMatchObject({ line: meta.error_line, message: expect.stringContaining(meta.error!) });
    expect(r.stderr).toContain(`(line ${meta.error_line})`);
  }, T);

  it('a table missing rows against its COPY block: exit 14, the table and both counts', async () => {
    const meta = manifest.files['missing-rows.pg.sql.gz']!;
    const r = await cli(['restore-test', 'missing rows', '--json']);
    expect(r.code, r.stderr).toBe(14);
    expect(tables(fileOf(r.stdout))[meta.short_table!]).toEqual([150, meta.restored_rows]);
    expect(r.stderr).toContain(`${meta.short_table}: the dump holds 150 rows, the restored table ${meta.restored_rows}`);
  }, T);

  it('a dump that needs a role the target lacks passes, with warnings', async () => {
    const r = await cli(['restore-test', 'needs role', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const f = fileOf(r.stdout);
    expect(f).toMatchObject({ verdict: 'restored', rows: 550 });
    expect(f.warnings.join('\n')).toMatch(/OWNER TO/);
    expect(f.warnings.join('\n')).toMatch(/GRANT/);
  }, T);

  it('a failed --assert: exit 14, the query and what it returned', async () => {
    const sql = 'select count(*) > 1000 from public.orders';
    const r = await cli(['restore-test', 'api postgres', '--assert', sql]);
    expect(r.code, r.stderr).toBe(14);
    expect(r.stderr).toContain(`--assert returned f, not true: ${sql}`);
  }, T);
});

describe('restore-test --into: a scratch server the user gives', () => {
  const password = 'Into-s3cret-pw';
  let pg: TestServer;
  beforeAll(async () => {
    pg = await startTestPostgres(password);
  }, T);
  afterAll(async () => {
    await pg?.stop();
  });

  it('restores into a fresh database on it as its own user, drops it afterwards; the password is never printed, not with --debug', async () => {
    const r = await cli(['restore-test', 'api postgres', '--into', pg.url, '--debug', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const f = fileOf(r.stdout);
    expect(f).toMatchObject({ verdict: 'restored', engine: { mode: 'server', product: 'PostgreSQL' }, rows: 550 });
    expect(f.database).toMatch(/^backupctl_restore_/);
    expect(r.stdout + r.stderr).not.toContain(password);
    expect(pg.admin(`select count(*) from pg_database where datname = '${f.database}'`).trim()).toBe('0');
  }, T);

  it('BACKUPCTL_RESTORE_URL works as --into', async () => {
    const r = await cli(['restore-test', 'pg custom', '--json'], { BACKUPCTL_RESTORE_URL: pg.url });
    expect(r.code, r.stderr).toBe(0);
    expect(fileOf(r.stdout)).toMatchObject({ kind: 'pg-custom', engine: { mode: 'server' }, rows: 550 });
  }, T);

  it('an unreachable --into server: not-tested with the exit code of its cause (15), never "failed" (issue 29); said without the password', async () => {
    const gone = `postgres://tester:${password}@/postgres?host=${path.join(pg.dir, 'no-such-socket-dir')}`;
    const r = await cli(['restore-test', 'api postgres', '--into', gone]);
    expect(r.code, r.stderr).toBe(15);
    expect(r.stderr).toMatch(/error: the restore test of job api postgres could not run: .*(connect|socket|No such file).*not-tested/i);
    expect(r.stdout + r.stderr).not.toMatch(/FAILED/);
    expect(r.stdout + r.stderr).not.toContain(password);
  }, T);
});

describe('restore-test --into a MariaDB the test starts', () => {
  const password = 'Maria-s3cret-pw';
  let my: TestServer;
  beforeAll(async () => {
    my = await startTestMariadb(password);
  }, T);
  afterAll(async () => {
    await my?.stop();
  });

  it('restores a mariadb-dump file into a fresh database as its own user and drops it; the password is never printed', async () => {
    const r = await cli(['restore-test', 'mariadb dump', '--into', my.url, '--debug', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const f = fileOf(r.stdout);
    expect(f).toMatchObject({ kind: 'mysql', verdict: 'restored', engine: { mode: 'server', product: 'MariaDB' }, rows: 550 });
    expect(f.database).toMatch(/^backupctl_restore_/);
    expect(r.stdout + r.stderr).not.toContain(password);
    expect(my.admin(`select count(*) from information_schema.schemata where schema_name = '${f.database}'`).trim()).toBe('0');
    // The dump's own CREATE DATABASE shop / USE shop never reached the server.
    expect(my.admin("select count(*) from information_schema.schemata where schema_name = 'shop'").trim()).toBe('0');
  }, T);

  it('a --databases dump is refused on it: exit 14, nothing written to another database', async () => {
    const r = await cli(['restore-test', 'two databases', '--into', my.url]);
    expect(r.code, r.stderr).toBe(14);
    expect(r.stderr).toMatch(/the dump holds several databases \(shop, shop_archive\)/);
    expect(my.admin("select count(*) from information_schema.schemata where schema_name in ('shop', 'shop_archive')").trim()).toBe('0');
  }, T);
});

describe('restore-test: the bytes decide, not the record', () => {
  let damaged: Emulator;
  beforeAll(async () => {
    damaged = await startTestEmulator({ seed: 'empty', damagedFiles: true });
  });
  afterAll(async () => {
    await damaged.close();
  });

  it('a backup whose record names an encryption key but whose bytes are a plain mariadb-dump file is restored', async () => {
    const r = await cli(['restore-test', 'keyed files', '--json'], { BACKUPCTL_BASE_URL: damaged.url, BACKUPCTL_TOKEN: damaged.token });
    expect(r.code, r.stderr).toBe(0);
    expect(fileOf(r.stdout)).toMatchObject({ kind: 'mysql', verdict: 'restored', rows: 550 });
  }, T);
});

describe('restore-test: verify\'s ledger on the way', () => {
  let changing: Emulator;
  beforeAll(async () => {
    changing = await startTestEmulator({ seed: 'demo', changingFiles: true });
  });
  afterAll(async () => {
    await changing.close();
  });

  it('bytes that differ from those verified before fail the test with "changed since" (exit 11), as verify would', async () => {
    // A ledger of its own: the demo's backup ids are the same in every emulator, and the others served other bytes.
    const own = mkdtempSync(path.join(tmpdir(), 'backupctl-state-'));
    try {
      const at = { BACKUPCTL_BASE_URL: changing.url, BACKUPCTL_TOKEN: changing.token, XDG_STATE_HOME: own };
      const first = await cli(['restore-test', 'api postgres', '--json'], at);
      expect(first.code, first.stderr).toBe(0);
      const again = await cli(['restore-test', 'api postgres', '--json'], at);
      expect(again.code, again.stderr).toBe(11);
      expect(fileOf(again.stdout).check).toMatchObject({ verdict: 'failed', reason: expect.stringMatching(/^changed since /) });
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  }, T);
});

describe('restore-test: Ctrl-C in the middle of a restore', () => {
  /** The direct children of a process, with their name and working folder. */
  const children = (pid: number) =>
    childPids(pid)
      .map((child) => {
        let name = '';
        let cwd = '';
        try {
          const comm = readFileSync(`/proc/${child}/comm`, 'utf8').trim();
          // The single-user step that sets the password of a cluster copied from the template is not the server.
          const single = readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0').includes('--single');
          cwd = readlinkSync(`/proc/${child}/cwd`);
          // Named only when read whole: a child gone between the reads (the short --single step) is not taken for the server.
          name = single ? 'postgres --single' : comm;
        } catch {
          // gone meanwhile
        }
        return { pid: child, name, cwd };
      });

  it.each([
    ['SIGINT', 'PostgreSQL', 130, 'pg custom', 'postgres'],
    ['SIGTERM', 'PostgreSQL', 143, 'pg custom', 'postgres'],
    ['SIGINT', 'MariaDB', 130, 'mariadb dump', 'mariadbd'],
  ] as const)('%s while the local %s restores: exit %i, no server process and no folder left', async (signal, _product, code, job, serverName) => {
    emu.setFaults([{ fault: 'slow-body', path: '/files/' }]);
    try {
      const run = startCli(['restore-test', job], env(), 60_000);
      const seen = new Map<number, { name: string; cwd: string }>();
      await until(() => {
        for (const c of children(run.child.pid!)) if (c.name) seen.set(c.pid, c);
        return [...seen.values()].some((c) => c.name === serverName);
      }, 60_000);
      const server = [...seen.entries()].find(([, c]) => c.name === serverName)!;
      expect(server[1].cwd).toMatch(/backupctl-restore-/);
      run.child.kill(signal);
      const r = await run.done;
      expect(r.code, r.stderr).toBe(code);
      for (const pid of seen.keys()) expect(pidAlive(pid), `pid ${pid} (${seen.get(pid)!.name})`).toBe(false);
      expect(existsSync(server[1].cwd)).toBe(false);
    } finally {
      emu.setFaults([]);
    }
  }, T);
});
