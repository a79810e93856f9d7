// The engine-failure matrix (issue 42): every restore engine, and each way it can fail on its own
// (its binary or driver missing or exiting at once, a crash in the middle of the restore, a refused
// login), ends the restore test not-tested (exit 15) and never failed: the mark says not-tested,
// status does not call the job failing, and the message names the cause. The failures are real
// programs behaving badly: fake executables first on PATH, a wrapper that SIGKILLs the real server
// once the dump's data starts to arrive, a fake PGlite package beside a copy of the CLI, and a
// Unix-socket relay in front of a real --into server that vanishes (connections cut, socket gone) at
// the dump's first COPY or INSERT. Before the boundary (src/restore/engines.ts) most of these said
// "failed" (exit 14), and the single executable's PGlite said so for every backup.
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, runCli, runProgram } from '../helpers/cli.js';
import { emulatorEnv, withEmulator } from '../helpers/emulator.js';
import { startTestMariadb, startTestPostgres, type TestServer } from '../helpers/restore.js';

const PG_JOB = 'api postgres';
const MY_JOB = 'mariadb dump';
const REAL_PG_BIN = '/usr/lib/postgresql/15/bin';

let work: string;
let state: string;
let pg: TestServer;
let my: TestServer;

/** A folder of executables anyone may run (the ephemeral servers run as nobody). */
function binDir(name: string, files: Record<string, string>, links: Record<string, string> = {}): string {
  const dir = path.join(work, name);
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  chmodSync(dir, 0o755);
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text, { mode: 0o755 });
  for (const [file, target] of Object.entries(links)) symlinkSync(target, path.join(dir, file));
  return dir;
}

const exits = (what: string) => `#!/bin/sh\necho "${what}: cannot start (a broken install)" >&2\nexit 1\n`;

/**
 * A relay on a Unix socket in front of a real server's socket. The first time the client sends
 * `trigger`, the server vanishes: every connection is cut, the socket is removed, nothing answers.
 */
async function vanishingRelay(listenAt: string, target: string, trigger: string): Promise<{ close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let gone = false;
  const server = net.createServer((client) => {
    if (gone) return client.destroy();
    const upstream = net.connect(target);
    sockets.add(client).add(upstream);
    let seen = '';
    client.on('data', (d: Buffer) => {
      seen = (seen + d.toString('latin1')).slice(-4096);
      if (!gone && seen.includes(trigger)) {
        gone = true;
        server.close();
        for (const s of sockets) s.destroy();
        return;
      }
      upstream.write(d);
    });
    upstream.on('data', (d: Buffer) => client.write(d));
    for (const s of [client, upstream]) {
      s.on('error', () => {});
      s.on('close', () => {
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(listenAt, resolve));
  chmodSync(listenAt, 0o777);
  return { close: () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve())) };
}

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'backupctl-engine-failures-'));
  chmodSync(work, 0o755);
  state = path.join(work, 'state');
  [pg, my] = await Promise.all([startTestPostgres('Matrix-pg-42'), startTestMariadb('Matrix-my-42')]);
}, 180_000);
afterAll(async () => {
  await Promise.all([pg?.stop(), my?.stop()]);
  rmSync(work, { recursive: true, force: true });
});

describe('an engine that fails on its own is not-tested (exit 15), never failed', () => {
  // archiveFaults: the jobs of restore-test's real dumps ("mariadb dump", a mariadb-dump file).
  const emu = withEmulator({ archiveFaults: true });

  /** The built CLI with this file's state folder (its marks), PATH as given. */
  const cli = (args: string[], env: Record<string, string | undefined> = {}) => runCli(args, { env: { ...emulatorEnv(emu), XDG_STATE_HOME: state, ...env }, timeoutMs: 300_000 });

  /** Exit 15, not-tested in the document, its cause named; the mark not-tested and the job not failing. */
  async function expectNotTested(job: string, r: { code: number | null; stdout: string; stderr: string }, cause: RegExp) {
    expect(r.code, r.stderr).toBe(15);
    expect(r.stderr).toMatch(cause);
    expect(r.stderr).not.toContain(`restore test of job ${job} failed`);
    if (r.stdout.trim()) {
      const doc = JSON.parse(r.stdout) as { verdict: string };
      expect(doc.verdict).toBe('not-tested');
    }
    const s = await cli(['status', '--json', '--job', job]);
    expect(s.code, s.stderr).toBe(0);
    const j = (JSON.parse(s.stdout) as { jobs: { name: string; health: string; restore_test: { state: string } | null }[] }).jobs.find((x) => x.name === job)!;
    expect(j.restore_test?.state).toBe('not-tested');
    expect(j.health).not.toBe('failing');
  }

  describe('ephemeral PostgreSQL (--engine local)', () => {
    it('its binaries exit at once: not-tested, naming initdb', async () => {
      const bin = binDir('pg-broken', { initdb: exits('initdb'), postgres: exits('postgres') }, { psql: `${REAL_PG_BIN}/psql` });
      const r = await cli(['restore-test', PG_JOB, '--engine', 'local', '--json'], { PATH: `${bin}:/usr/bin:/bin` });
      await expectNotTested(PG_JOB, r, /could not start: initdb failed.*cannot start/);
    }, 300_000);

    it('the server is SIGKILLed once the dump\'s COPY arrives: not-tested, the server stopped answering', async () => {
      const wrapper = `#!/bin/bash\nexec ${REAL_PG_BIN}/postgres "$@" -c log_statement=all 2> >(while IFS= read -r l; do printf '%s\\n' "$l" >&2; case "$l" in *"statement: COPY"*) kill -9 $$;; esac; done)\n`;
      const bin = binDir('pg-crash', { postgres: wrapper }, { initdb: `${REAL_PG_BIN}/initdb`, psql: `${REAL_PG_BIN}/psql` });
      const r = await cli(['restore-test', PG_JOB, '--engine', 'local', '--json'], { PATH: `${bin}:/usr/bin:/bin` });
      await expectNotTested(PG_JOB, r, /PostgreSQL \(local\) stopped answering during the restore/);
    }, 300_000);
  });

  describe('ephemeral MariaDB (--engine local)', () => {
    it('its binaries exit at once: not-tested, naming mariadb-install-db', async () => {
      const bin = binDir('my-broken', { mariadbd: exits('mariadbd'), 'mariadb-install-db': exits('mariadb-install-db') });
      const r = await cli(['restore-test', MY_JOB, '--engine', 'local', '--json'], { PATH: `${bin}:/usr/bin:/bin` });
      await expectNotTested(MY_JOB, r, /could not start: mariadb-install-db failed.*cannot start/);
    }, 300_000);

    it('the server is SIGKILLed once the dump\'s INSERT arrives: not-tested, the server stopped answering', async () => {
      const wrapper = [
        '#!/bin/bash',
        'log=""',
        'for a in "$@"; do case "$a" in --tmpdir=*) log="${a#--tmpdir=}/general.log";; esac; done',
        // Bounded: at most 60 s, and not a moment after the server is gone.
        '( for i in $(seq 1 1200); do kill -0 $$ 2>/dev/null || exit 0; if grep -qs "INSERT INTO" "$log"; then kill -9 $$; exit 0; fi; sleep 0.05; done ) &',
        'exec /usr/sbin/mariadbd "$@" --general-log=1 --general-log-file="$log"',
        '',
      ].join('\n');
      const bin = binDir('my-crash', { mariadbd: wrapper }, { 'mariadb-install-db': '/usr/bin/mariadb-install-db' });
      const r = await cli(['restore-test', MY_JOB, '--engine', 'local', '--json'], { PATH: `${bin}:/usr/bin:/bin` });
      await expectNotTested(MY_JOB, r, /MariaDB \(local\) stopped answering during the restore|cannot connect to the MySQL\/MariaDB server/);
    }, 300_000);
  });

  describe('PGlite (--engine embedded), beside a copy of the CLI', () => {
    let copy: string;
    const pgliteDir = () => path.join(copy, 'node_modules', '@electric-sql', 'pglite');
    const fakePglite = (source: string) => {
      mkdirSync(pgliteDir(), { recursive: true });
      writeFileSync(path.join(pgliteDir(), 'package.json'), JSON.stringify({ name: '@electric-sql/pglite', version: '0.0.0-fake', main: 'index.js' }));
      writeFileSync(path.join(pgliteDir(), 'index.js'), source);
    };
    const copied = (args: string[]) =>
      runProgram(process.execPath, [path.join(copy, 'bin', 'backupctl.cjs'), ...args], { env: cleanEnv({ ...emulatorEnv(emu), XDG_STATE_HOME: state }), timeoutMs: 300_000 });

    beforeAll(() => {
      // Installed as npm would: the package's files, and node_modules beside them holding only what the test puts there.
      copy = path.join(work, 'copy');
      for (const part of ['package.json', 'bin', 'dist']) cpSync(path.join(ROOT, part), path.join(copy, part), { recursive: true });
      expect(path.relative(ROOT, path.join(copy, 'bin', 'backupctl.cjs'))).not.toBe(path.relative(ROOT, BIN));
    });

    it('not installed: not-tested, "PGlite is not installed" first', async () => {
      const r = await copied(['restore-test', PG_JOB, '--engine', 'embedded', '--json']);
      await expectNotTested(PG_JOB, r, /^error: no engine to restore a PostgreSQL dump: PGlite is not installed/m);
    }, 300_000);

    it('a PGlite that exits as it loads: not-tested, naming its exit', async () => {
      fakePglite("process.stderr.write('PGlite: a broken install\\n'); process.exit(3);\n");
      const r = await copied(['restore-test', PG_JOB, '--engine', 'embedded', '--json']);
      await expectNotTested(PG_JOB, r, /PGlite exited \(exit code 3: PGlite: a broken install\)/);
    }, 300_000);

    it('a PGlite that refuses to open: not-tested, naming why', async () => {
      fakePglite("class PGlite { constructor() { this.waitReady = Promise.reject(new Error('INITDB failed to initialize (refused)')); this.waitReady.catch(() => {}); } }\nmodule.exports = { PGlite };\n");
      const r = await copied(['restore-test', PG_JOB, '--engine', 'embedded', '--json']);
      await expectNotTested(PG_JOB, r, /PostgreSQL \(embedded\) could not start: INITDB failed to initialize \(refused\)/);
    }, 300_000);

    it('a PGlite that dies (SIGKILL) at the dump\'s first CREATE TABLE: not-tested, naming the signal', async () => {
      fakePglite(
        [
          'class PGlite {',
          '  constructor() { this.waitReady = Promise.resolve(); }',
          "  async query(sql) { return { rows: /server_version/.test(sql) ? [['16.0']] : [] }; }",
          "  async exec(sql) { if (/CREATE TABLE/i.test(sql)) process.kill(process.pid, 'SIGKILL'); }",
          '}',
          'module.exports = { PGlite };',
          '',
        ].join('\n'),
      );
      const r = await copied(['restore-test', PG_JOB, '--engine', 'embedded', '--json']);
      await expectNotTested(PG_JOB, r, /PGlite exited \(SIGKILL\)/);
    }, 300_000);
  });

  describe('--into PostgreSQL', () => {
    it('a psql that exits at once: not-tested, naming psql', async () => {
      const psql = `#!/bin/sh\ncase "$1" in --version|-V) exec ${REAL_PG_BIN}/psql "$@";; esac\necho "psql: a broken install" >&2\nexit 2\n`;
      const bin = binDir('psql-broken', { psql }, { pg_restore: `${REAL_PG_BIN}/pg_restore` });
      const r = await cli(['restore-test', PG_JOB, '--into', pg.url, '--json'], { PATH: `${bin}:/usr/bin:/bin` });
      await expectNotTested(PG_JOB, r, /could not start|cannot connect to PostgreSQL/);
      expect(r.stderr).toMatch(/psql: a broken install/);
    }, 300_000);

    it('the server vanishes at the dump\'s first COPY: not-tested, the server stopped answering', async () => {
      const dir = path.join(work, 'pg-relay');
      mkdirSync(dir, { mode: 0o755 });
      const relay = await vanishingRelay(path.join(dir, '.s.PGSQL.5432'), path.join(pg.dir, '.s.PGSQL.5432'), 'FROM stdin');
      try {
        const r = await cli(['restore-test', PG_JOB, '--into', pg.url.replace(pg.dir, dir), '--json']);
        await expectNotTested(PG_JOB, r, /PostgreSQL \(server\) stopped answering during the restore/);
      } finally {
        await relay.close();
      }
    }, 300_000);

    it('a refused login: not-tested, naming the refusal, never the password', async () => {
      const r = await cli(['restore-test', PG_JOB, '--into', pg.url.replace('Matrix-pg-42', 'Wrong-pw-42'), '--json']);
      await expectNotTested(PG_JOB, r, /password authentication failed/);
      expect(r.stdout + r.stderr).not.toContain('Wrong-pw-42');
    }, 300_000);
  });

  describe('--into MySQL/MariaDB', () => {
    it('the mysql2 driver missing (a copy of the CLI without it): not-tested, the driver named first', async () => {
      const copy = path.join(work, 'copy-no-mysql2');
      for (const part of ['package.json', 'bin', 'dist']) cpSync(path.join(ROOT, part), path.join(copy, part), { recursive: true });
      const r = await runProgram(process.execPath, [path.join(copy, 'bin', 'backupctl.cjs'), 'restore-test', MY_JOB, '--into', my.url, '--json'], {
        env: cleanEnv({ ...emulatorEnv(emu), XDG_STATE_HOME: state }),
        timeoutMs: 300_000,
      });
      await expectNotTested(MY_JOB, r, /^error: no engine to restore a MySQL\/MariaDB dump: the mysql2 driver is not installed/m);
    }, 300_000);

    it('the server vanishes at the dump\'s first INSERT: not-tested, the server stopped answering', async () => {
      const sock = path.join(work, 'my-relay.sock');
      const real = /socket=([^&]+)/.exec(my.url)![1]!;
      const relay = await vanishingRelay(sock, decodeURIComponent(real), 'INSERT INTO');
      try {
        const r = await cli(['restore-test', MY_JOB, '--into', my.url.replace(real, sock), '--json']);
        await expectNotTested(MY_JOB, r, /(MySQL|MariaDB)[^(]*\(server\) stopped answering during the restore/);
      } finally {
        await relay.close();
        try {
          unlinkSync(sock);
        } catch {
          /* gone with the relay */
        }
      }
    }, 300_000);

    it('a refused login: not-tested, naming the refusal, never the password', async () => {
      const r = await cli(['restore-test', MY_JOB, '--into', my.url.replace('Matrix-my-42', 'Wrong-pw-42'), '--json']);
      await expectNotTested(MY_JOB, r, /Access denied/);
      expect(r.stdout + r.stderr).not.toContain('Wrong-pw-42');
    }, 300_000);
  });
});
