// Issue 45.4 for MariaDB --into: what a killed restore-test leaves on the --into server. A real MariaDB this test
// starts (its event scheduler on); the built CLI restores the demo's "mariadb dump" into it as a privileged user.
// SIGKILL while the dump's session runs a long statement: the guardian drops the scratch database and the
// throwaway login and kills the login's threads. Leftovers planted as an earlier run leaves them (our name, our
// note as the database's COMMENT, a login, an event holding a lock): the next run removes them and says so on
// stderr, and leaves a database of a similar name that is not ours, and one of a run under way. Each case looks at
// the server afterwards (databases, logins, events, threads) and at the processes, not only at the exit code.
import { readdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { spawn, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorSession } from '../helpers/emulator.js';
import { startHostileMariadb, type HostileMariadb } from '../helpers/mariadb.js';
import { pidAlive } from '../helpers/restore.js';
import { startCli, until } from '../helpers/spawn.js';

const T = 180_000;
let my: HostileMariadb;
let before: string[];
const { env, cli } = emulatorSession({ seed: 'demo', archiveFaults: true, timeoutMs: 150_000 });

beforeAll(async () => {
  my = await startHostileMariadb('Tester-pw-1', { args: ['--event-scheduler=ON'] });
  before = databases();
}, T);
afterAll(async () => {
  await my?.stop();
});

const lines = (s: string) => s.split('\n').map((l) => l.trim()).filter(Boolean).sort();
const databases = () => lines(my.admin('SELECT schema_name FROM information_schema.schemata'));
const events = () => lines(my.admin("SELECT CONCAT(EVENT_SCHEMA, '.', EVENT_NAME) FROM information_schema.EVENTS"));
const threads = () => lines(my.admin("SELECT CONCAT(ID, ' ', USER, ' ', COALESCE(DB, '-')) FROM information_schema.PROCESSLIST WHERE USER LIKE 'backupctl\\_r\\_%' OR DB LIKE 'backupctl%restore%'"));

/**
 * Whatever a run or this test left, removed without waiting on a lock (a failed case must not hang the file on
 * its own cleanup): no event starts, every thread of a backupctl login or in such a database is killed, then the
 * databases and the logins are dropped.
 */
function scrub(): void {
  const tryAdmin = (sql: string) => {
    try {
      my.admin(`SET SESSION lock_wait_timeout = 5; ${sql}`);
    } catch {
      /* gone already, or held: the next statement goes on */
    }
  };
  tryAdmin('SET GLOBAL event_scheduler = OFF');
  for (let round = 0; round < 3; round++) for (const t of threads()) tryAdmin(`KILL ${t.split(' ')[0]}`);
  for (const d of my.schemas('backupctl%restore%')) tryAdmin(`DROP DATABASE IF EXISTS \`${d}\``);
  for (const u of my.users('backupctl\\_r\\_%')) tryAdmin(`DROP USER IF EXISTS '${u.replace('@', "'@'")}'`);
  tryAdmin('SET GLOBAL event_scheduler = ON');
}

/** The shells whose environment names this scratch database: its guardian (its sleeps left out). */
function guardiansOf(db: string): number[] {
  const out: number[] = [];
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${p}/comm`, 'utf8').trim() === 'sh' && readFileSync(`/proc/${p}/environ`, 'latin1').includes(`"db":"${db}"`)) out.push(Number(p));
    } catch {
      /* gone, or not ours */
    }
  }
  return out;
}

describe('SIGKILL of backupctl during restore-test --into MariaDB (issue 45.4)', () => {
  it('within seconds the guardian has killed the login\'s threads and dropped the scratch database and the login, and is gone itself', async () => {
    // The dump's session runs a long statement when the signal comes: its first, DROP TABLE IF EXISTS `audit`, waits
    // on the lock a session of root holds in the scratch database (LOCK TABLES audit WRITE, then a long sleep). To
    // take the lock first, init_connect holds every session of a login without SUPER (the throwaway login's; the
    // test's root and boss skip it) a few seconds.
    my.admin("SET GLOBAL init_connect = 'DO SLEEP(8)'");
    let locker: ReturnType<typeof spawn> | null = null;
    try {
      const run = startCli(['restore-test', 'mariadb dump'], env({ BACKUPCTL_RESTORE_URL: my.bossUrl }), 120_000);
      await until(() => my.users('backupctl\\_r\\_%').length > 0, 60_000);
      const [db] = my.schemas('backupctl\\_restore\\_%');
      locker = spawn('mariadb', ['--no-defaults', `--socket=${my.sock}`, '--user=root', db!, '-e', 'CREATE TABLE audit (id int); LOCK TABLES audit WRITE; DO SLEEP(300)'], { stdio: 'ignore' });
      const exited = new Promise((r) => locker!.once('exit', r));
      await until(() => my.admin(`SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER LIKE 'backupctl\\_r\\_%' AND STATE = 'Waiting for table metadata lock' AND INFO LIKE '%DROP TABLE IF EXISTS \`audit\`'`).trim() === '1', 60_000);
      my.admin("SET GLOBAL init_connect = ''");
      expect(db).toMatch(/^backupctl_restore_[0-9a-f]{10}$/);
      // The database carries the note of the run that made it; its login has its hex.
      expect(my.admin(`SELECT SCHEMA_COMMENT FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '${db}'`).trim()).toMatch(
        new RegExp(`^backupctl restore-test: host ${hostname()} pid ${run.child.pid} start \\d+ at \\d+ login-host localhost$`),
      );
      expect(my.users('backupctl\\_r\\_%')).toEqual([`backupctl_r_${db!.slice(-10)}@localhost`]);
      const guardian = guardiansOf(db!);
      expect(guardian).toHaveLength(1);
      run.child.kill('SIGKILL');
      const r = await run.done;
      expect(r.signal ?? r.code).not.toBe(0);
      await until(() => my.schemas('backupctl\\_restore\\_%').length === 0 && my.users('backupctl\\_r\\_%').length === 0 && threads().length === 0, 20_000);
      expect(databases()).toEqual(before);
      expect(events()).toEqual([]);
      await until(() => !pidAlive(guardian[0]!), 10_000);
      // The lock holder was a thread in the scratch database: killed too.
      await exited;
    } finally {
      my.admin("SET GLOBAL init_connect = ''");
      locker?.kill('SIGKILL');
      scrub();
    }
  }, T);

  it('a later run removes what an earlier one left (by name, note and age) and says so on stderr; a similar database not ours, and a run under way, are left', async () => {
    const s = (ms: number) => Math.floor(ms / 1000);
    const gone = spawnSync('/bin/true').pid!;
    const startOf = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19];
    const old = `backupctl restore-test: host elsewhere pid 4242 start 1 at ${s(Date.now() - 2 * 86400_000)} login-host localhost`;
    const dead = `backupctl restore-test: host ${hostname()} pid ${gone} start 1 at ${s(Date.now() - 60_000)} login-host localhost`;
    const live = `backupctl restore-test: host ${hostname()} pid ${process.pid} start ${startOf(process.pid)} at ${s(Date.now())} login-host localhost`;
    my.admin(
      [
        // An earlier run's, two days old: its login, a table, and an event (running as the login) that holds a lock on it.
        `CREATE DATABASE backupctl_restore_00000dead0 COMMENT '${old}'`,
        "CREATE USER backupctl_r_00000dead0@localhost IDENTIFIED BY 'Left-pw-1'",
        'GRANT ALL ON `backupctl\\_restore\\_00000dead0`.* TO backupctl_r_00000dead0@localhost',
        'CREATE TABLE backupctl_restore_00000dead0.t (id int)',
        'INSERT INTO backupctl_restore_00000dead0.t VALUES (1)',
        'CREATE DEFINER = backupctl_r_00000dead0@localhost EVENT backupctl_restore_00000dead0.hold ON SCHEDULE EVERY 1 SECOND DO SELECT SLEEP(600) FROM backupctl_restore_00000dead0.t LIMIT 1 INTO @x',
        // An earlier run's on this machine, a minute old: its backupctl is gone.
        `CREATE DATABASE backupctl_restore_00000dead1 COMMENT '${dead}'`,
        // Not ours: a similar name without our note, our prefix with a longer name (and our note), a name with '-'.
        "CREATE DATABASE backupctl_restore_00000beef0 COMMENT 'the payroll copy'",
        'CREATE TABLE backupctl_restore_00000beef0.t (id int)',
        'CREATE DATABASE backupctl_restore_00000beef1',
        `CREATE DATABASE backupctl_restore_00000beef2_mine COMMENT '${old}'`,
        `CREATE DATABASE \`backupctl-restore-00000beef3\` COMMENT '${old}'`,
        // A run under way (this process): left alone.
        `CREATE DATABASE backupctl_restore_00000a11e0 COMMENT '${live}'`,
      ].join(';\n') + ';\n',
    );
    const planted = databases();
    try {
      await until(() => threads().some((t) => t.endsWith(' backupctl_restore_00000dead0')), 30_000);
      const r = await cli(['restore-test', 'mariadb dump'], { BACKUPCTL_RESTORE_URL: my.bossUrl });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('warning: removed the scratch database backupctl_restore_00000dead0 and its throwaway login backupctl_r_00000dead0 left by an earlier restore-test on the --into server (made 48 hours ago)');
      expect(r.stderr).toContain(`warning: removed the scratch database backupctl_restore_00000dead1 left by an earlier restore-test on the --into server (the backupctl that made it (pid ${gone}) is gone)`);
      expect(r.stderr.match(/left by an earlier restore-test/g)).toHaveLength(2);
      expect(databases()).toEqual(planted.filter((d) => !d.startsWith('backupctl_restore_00000dead')));
      expect(my.users('backupctl\\_r\\_%')).toEqual([]);
      expect(events()).toEqual([]);
      expect(threads()).toEqual([]);
      expect(my.admin('SELECT COUNT(*) FROM backupctl_restore_00000beef0.t').trim()).toBe('0');
    } finally {
      scrub();
    }
    expect(databases()).toEqual(before);
  }, T);

  it('a database kept with --keep loses its note: a later run, its backupctl gone, leaves it', async () => {
    try {
      const kept = await cli(['restore-test', 'mariadb dump', '--keep', '-q'], { BACKUPCTL_RESTORE_URL: my.bossUrl });
      expect(kept.code, kept.stderr).toBe(0);
      const [db] = my.schemas('backupctl\\_restore\\_%');
      expect(db).toMatch(/^backupctl_restore_[0-9a-f]{10}$/);
      expect(my.admin(`SELECT SCHEMA_COMMENT FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '${db}'`).trim()).toBe('kept by backupctl restore-test --keep');
      const later = await cli(['restore-test', 'mariadb dump'], { BACKUPCTL_RESTORE_URL: my.bossUrl });
      expect(later.code, later.stderr).toBe(0);
      expect(later.stderr).not.toMatch(/left by an earlier restore-test/);
      expect(my.schemas('backupctl\\_restore\\_%')).toEqual([db]);
      expect(my.users('backupctl\\_r\\_%')).toEqual([]);
    } finally {
      scrub();
    }
    expect(databases()).toEqual(before);
  }, T);
});
