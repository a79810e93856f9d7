// Issue 45 (restore-test, PostgreSQL --into): what a hostile dump leaves on a privileged --into server. Each
// case restores a small dump generated here through the code users run (the content stage, the dispatcher, the
// SQL sink) into a real PostgreSQL this test starts, then looks at the leftover itself: pg_prepared_xacts,
// pg_database, pg_roles.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { emulatorSession } from '../helpers/emulator.js';
import { startCli, until } from '../helpers/spawn.js';
import { runCli } from '../helpers/cli.js';
import { DispatchSink } from '../../src/restore/dispatch.js';
import { folderBytes } from '../../src/restore/disk-budget.js';
import { activeEphemeralServers } from '../../src/restore/servers/ephemeral.js';
import type { FileRestore, RestoreOptions } from '../../src/restore/types.js';
import { feed, options, pidAlive } from '../helpers/restore.js';
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

describe('a killed --into restore (issue 45.4)', () => {
  const { emu, env } = emulatorSession({ seed: 'demo', archiveFaults: true });
  /** The dump's psql: a direct child of the running CLI. */
  const psqlOf = (pid: number): number | null => {
    for (const p of spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean)) {
      try {
        if (readFileSync(`/proc/${p}/comm`, 'utf8').trim() === 'psql') return Number(p);
      } catch {
        /* gone */
      }
    }
    return null;
  };

  test(
    'SIGKILL of backupctl mid-restore: within seconds its psql is gone, and so are the scratch database and the login (the guardian)',
    async () => {
      emu.setFaults([{ fault: 'slow-body', path: '/files/' }]);
      try {
        const run = startCli(['restore-test', 'pg custom', '--into', pg.url], env(), 90_000);
        let client: number | null = null;
        await until(() => (client = psqlOf(run.child.pid!)) !== null && pg.sql("SELECT count(*) FROM pg_stat_activity WHERE datname LIKE 'backupctl\\_restore\\_%'") !== '0', 60_000);
        expect(pg.sql("SELECT count(*) FROM pg_roles WHERE rolname LIKE 'backupctl\\_r\\_%'")).toBe('1');
        run.child.kill('SIGKILL');
        await run.done;
        await until(() => !pidAlive(client!) && pg.sql("SELECT count(*) FROM pg_database WHERE datname LIKE 'backupctl\\_restore\\_%'") === '0', 10_000);
        nothingLeft();
      } finally {
        emu.setFaults([]);
      }
    },
    T,
  );

  test(
    'a later run removes what a killed run (and its guardian) left, by name and note, and says so; a run under way is left alone',
    async () => {
      const gone = spawnSync('/bin/true').pid!;
      const old = `backupctl restore-test: host ${hostname()} pid ${gone} start 1 at ${Math.floor(Date.now() / 1000) - 60}`;
      const live = `backupctl restore-test: host ${hostname()} pid ${process.pid} start ${readFileSync(`/proc/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]} at ${Math.floor(Date.now() / 1000)}`;
      pg.sql(`CREATE ROLE backupctl_r_00000dead0 LOGIN PASSWORD 'x'; COMMENT ON ROLE backupctl_r_00000dead0 IS '${old}'`);
      pg.sql('CREATE DATABASE backupctl_restore_00000dead0 OWNER backupctl_r_00000dead0');
      pg.sql(`COMMENT ON DATABASE backupctl_restore_00000dead0 IS '${old}'`);
      pg.sql('CREATE DATABASE backupctl_restore_00000a11e0');
      pg.sql(`COMMENT ON DATABASE backupctl_restore_00000a11e0 IS '${live}'`);
      try {
        const r = await restore(`${HEAD}CREATE TABLE public.t (id int);\nINSERT INTO public.t VALUES (1);\n`);
        expect(r.failure).toBeNull();
        expect(r.warnings).toEqual(
          expect.arrayContaining([
            `removed the scratch database backupctl_restore_00000dead0 left by an earlier restore-test on the --into server (the backupctl that made it (pid ${gone}) is gone)`,
            `removed the throwaway login backupctl_r_00000dead0 left by an earlier restore-test on the --into server (the backupctl that made it (pid ${gone}) is gone)`,
          ]),
        );
        expect(pg.sql("SELECT string_agg(datname, ',') FROM pg_database WHERE datname LIKE 'backupctl\\_restore\\_%'")).toBe('backupctl_restore_00000a11e0');
        expect(pg.sql("SELECT count(*) FROM pg_roles WHERE rolname LIKE 'backupctl\\_r\\_%'")).toBe('0');
      } finally {
        pg.sql('DROP DATABASE IF EXISTS backupctl_restore_00000a11e0');
        pg.sql('DROP DATABASE IF EXISTS backupctl_restore_00000dead0');
        pg.sql('DROP ROLE IF EXISTS backupctl_r_00000dead0');
      }
    },
    T,
  );
});

describe('--keep on an --into server', () => {
  const { env } = emulatorSession({ seed: 'demo', archiveFaults: true });
  test(
    'a database kept with --keep loses its owner note: a later run, its backupctl gone, leaves it and its login',
    async () => {
      try {
        const kept = await runCli(['restore-test', 'pg custom', '--into', pg.url, '--keep', '-q'], { env: env(), timeoutMs: 120_000 });
        expect(kept.code, kept.stderr).toBe(0);
        const db = pg.sql("SELECT string_agg(datname, ',') FROM pg_database WHERE datname LIKE 'backupctl\\_restore\\_%'");
        expect(db).toMatch(/^backupctl_restore_[0-9a-f]+$/);
        expect(pg.sql(`SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = '${db}'`)).toBe('kept by backupctl restore-test --keep');
        const later = await runCli(['restore-test', 'pg custom', '--into', pg.url], { env: env(), timeoutMs: 120_000 });
        expect(later.code, later.stderr).toBe(0);
        expect(later.stderr).not.toMatch(/left by an earlier restore-test/);
        expect(pg.sql("SELECT string_agg(datname, ',') FROM pg_database WHERE datname LIKE 'backupctl\\_restore\\_%'")).toBe(db);
      } finally {
        for (const db of pg.sql("SELECT string_agg(datname, ' ') FROM pg_database WHERE datname LIKE 'backupctl\\_restore\\_%'").split(' ').filter(Boolean)) pg.sql(`DROP DATABASE IF EXISTS ${db}`);
        for (const role of pg.sql("SELECT string_agg(rolname, ' ') FROM pg_roles WHERE rolname LIKE 'backupctl\\_r\\_%'").split(' ').filter(Boolean)) pg.sql(`DROP ROLE IF EXISTS ${role}`);
      }
      nothingLeft();
    },
    T,
  );
});

describe('the disk budget (issue 45.5, BACKUPCTL_RESTORE_MAX_DISK)', () => {
  // ~1.2 GB of table data out of one line of text: stopped near the budget, its bytes measured while it runs.
  const bomb = `${HEAD}CREATE TABLE public.keep (id int);\nCREATE UNLOGGED TABLE public.big AS SELECT g, repeat('x', 200) AS pad FROM generate_series(1, 5000000) g;\n`;
  const budget = 100 * 1024 * 1024;

  test(
    'a local server: the dump that makes its own data is stopped near the budget (its data folder measured), failed, naming the setting',
    async () => {
      let peak = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          for (const s of activeEphemeralServers()) peak = Math.max(peak, await folderBytes(s.dir));
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const t0 = Date.now();
      const r = await restore(bomb, { engine: 'local', env: { PATH: process.env.PATH, BACKUPCTL_RESTORE_MAX_DISK: '100MiB' } }).finally(() => (sampling = false));
      await sampler;
      expect(r.verdict).toBe('failed');
      expect(r.failure!.message).toMatch(/^the dump made [\d.]+ MiB of data in the ephemeral server's folder .* over BACKUPCTL_RESTORE_MAX_DISK=100 MiB: stopped, a dump that makes data of its own/);
      // Measured: the folder never grew far past the budget (a poll every 0.5 s; on a loaded machine a walk of the
      // folder takes longer, so up to 4x), nor to the 1.2 GB the dump makes.
      expect(peak).toBeGreaterThan(budget / 2);
      expect(peak).toBeLessThan(4 * budget);
      expect(Date.now() - t0).toBeLessThan(60_000);
      expect(activeEphemeralServers()).toEqual([]);
    },
    T,
  );

  test(
    '--into: the scratch database is measured on the server; stopped, failed, and nothing left',
    async () => {
      const r = await restore(bomb, { env: { PATH: process.env.PATH, BACKUPCTL_RESTORE_MAX_DISK: '100MiB' } });
      expect(r.verdict).toBe('failed');
      expect(r.failure!.message).toMatch(/^the dump made [\d.]+ MiB of data in the scratch database backupctl_restore_[0-9a-f]+ .* over BACKUPCTL_RESTORE_MAX_DISK=100 MiB/);
      nothingLeft();
    },
    T,
  );
});
