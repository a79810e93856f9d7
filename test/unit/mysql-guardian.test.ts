// Issue 45.4 for MariaDB/MySQL --into: the rules of what a killed restore leaves (src/restore/sql/mysql-guardian.ts),
// beside their e2e test (test/e2e/hostile-mariadb-leftovers.test.ts): the guardian acts only once its backupctl is
// gone, and then, as the administrator, drops the login, kills its threads, drops the events, then the database;
// a later run takes a database for a leftover only by our exact name, our note, and the note's run gone or a day old.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { LEFTOVER_AGE_MS } from '../../src/restore/sql/pg-guardian.js';
import { dropLeftover, judgeLeftovers, loginOf, mysqlOwnerNote, startMysqlGuardian, sweepMysqlLeftovers, type AdminSession } from '../../src/restore/sql/mysql-guardian.js';
import { pidAlive } from '../helpers/restore.js';
import { until } from '../helpers/spawn.js';

const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-myguardian-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in mysql2/promise: logs the connection options and every statement; answers the events and threads queries. */
function fakeDriver(log: string): string {
  const file = path.join(dir, `fake-mysql2-${path.basename(log)}.cjs`);
  writeFileSync(
    file,
    `const fs = require('fs');
const say = (s) => fs.appendFileSync(${JSON.stringify(log)}, s + '\\n');
exports.createConnection = async (o) => {
  say('connect ' + JSON.stringify(o));
  return {
    on() {},
    destroy() { say('destroy'); },
    async query(x) {
      say(x.sql);
      if (/FROM information_schema.EVENTS/.test(x.sql)) return [[['tick']]];
      if (/FROM information_schema.PROCESSLIST/.test(x.sql)) return [[[41], [42]]];
      return [{ affectedRows: 0 }];
    },
  };
};
`,
  );
  return file;
}

describe('the guardian of an --into MariaDB restore', () => {
  test('waits while its backupctl runs; once it is gone, drops the login, kills its threads, drops the events and the database, as the administrator', async () => {
    const log = path.join(dir, 'guard.log');
    const owner = spawn('/bin/sh', ['-c', 'sleep 60'], { stdio: 'ignore' });
    const g = startMysqlGuardian({
      conn: { socketPath: '/run/x.sock', user: 'boss', password: 'Boss-pw' },
      database: 'backupctl_restore_0123456789',
      login: 'backupctl_r_0123456789',
      hosts: ['localhost'],
      mysql2: fakeDriver(log),
      owner: owner.pid!,
    });
    expect(g).not.toBeNull();
    await new Promise((r) => setTimeout(r, 1200));
    expect(existsSync(log)).toBe(false);
    expect(pidAlive(g!.pid!)).toBe(true);
    owner.kill('SIGKILL');
    await until(() => !pidAlive(g!.pid!), 15_000);
    const said = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    expect(JSON.parse(said[0]!.replace(/^connect /, ''))).toMatchObject({ socketPath: '/run/x.sock', user: 'boss', password: 'Boss-pw', flags: ['-LOCAL_FILES', '-MULTI_STATEMENTS', '-CONNECT_ATTRS'], multipleStatements: false });
    const threads = "SELECT ID FROM information_schema.PROCESSLIST WHERE (USER = 'backupctl_r_0123456789' OR DB = 'backupctl_restore_0123456789') AND ID <> CONNECTION_ID()";
    expect(said.slice(1)).toEqual([
      "SET SESSION sql_mode = REPLACE(@@SESSION.sql_mode, 'NO_BACKSLASH_ESCAPES', '')",
      'SET SESSION lock_wait_timeout = 3',
      "DROP USER IF EXISTS 'backupctl_r_0123456789'@'localhost'",
      // The threads first (a running event holds its own lock), the events, the threads again, the database.
      threads,
      'KILL 41',
      'KILL 42',
      "SELECT EVENT_NAME FROM information_schema.EVENTS WHERE EVENT_SCHEMA = 'backupctl_restore_0123456789'",
      'DROP EVENT IF EXISTS `backupctl_restore_0123456789`.`tick`',
      threads,
      'KILL 41',
      'KILL 42',
      'DROP DATABASE IF EXISTS `backupctl_restore_0123456789`',
      'destroy',
    ]);
  });

  test('killed by its backupctl once the cleanup is done, it never acts', async () => {
    const log = path.join(dir, 'quiet.log');
    const owner = spawn('/bin/sh', ['-c', 'sleep 60'], { stdio: 'ignore' });
    const g = startMysqlGuardian({ conn: { host: '127.0.0.1', port: 3306, user: 'boss' }, database: 'backupctl_restore_aaaaaaaaaa', login: null, hosts: [], mysql2: fakeDriver(log), owner: owner.pid! });
    g!.kill('SIGKILL');
    await until(() => !pidAlive(g!.pid!), 5000);
    owner.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 1000));
    expect(existsSync(log)).toBe(false);
  });
});

describe('leftovers of an earlier run: by our exact name, our note, and the note\'s run gone or its age', () => {
  const now = Date.parse('2026-12-02T03:00:00Z');
  const at = (ms: number) => Math.floor(ms / 1000);
  const here = { host: 'box', startOf: (pid: number) => (pid === 100 ? '555' : null) };
  const note = (host: string, pid: number, start: string, ms: number) => `backupctl restore-test: host ${host} pid ${pid} start ${start} at ${at(ms)} login-host localhost`;
  test.each([
    ['its run is gone', 'backupctl_restore_00000dead0', note('box', 200, '9', now - 60_000), 'the backupctl that made it (pid 200) is gone'],
    ['its pid runs another process', 'backupctl_restore_00000dead0', note('box', 100, '554', now - 60_000), 'the backupctl that made it (pid 100) is gone'],
    ['its run is under way', 'backupctl_restore_00000a11e0', note('box', 100, '555', now - 60_000), null],
    ['another machine\'s run, an hour old', 'backupctl_restore_00000a11e0', note('other', 200, '9', now - 3600_000), null],
    ['another machine\'s run, older than a day', 'backupctl_restore_00000dead0', note('other', 200, '9', now - LEFTOVER_AGE_MS - 3600_000), 'made 25 hours ago'],
    ['a similar name, not ours (a letter past f)', 'backupctl_restore_00000deadz', note('box', 200, '9', now - 60_000), null],
    ['a similar name, not ours (longer)', 'backupctl_restore_00000dead0_mine', note('box', 200, '9', now - 60_000), null],
    ['our name, a note of the user\'s', 'backupctl_restore_00000dead0', 'the payroll copy', null],
    ['our name, no note (MySQL, or made by hand)', 'backupctl_restore_00000dead0', '', null],
    ['our name, pg\'s note without the login host', 'backupctl_restore_00000dead0', `backupctl restore-test: host box pid 200 start 9 at ${at(now - 60_000)}`, null],
  ])('%s', (_name, database, comment, why) => {
    const found = judgeLeftovers([[database, comment]], now, here);
    expect(found).toEqual(why === null ? [] : [{ database, login: `backupctl_r_${database.slice(-10)}`, hosts: ['localhost'], why }]);
  });

  test('the note of this process names this host, this pid and its start, and the login\'s host: a run under way is never a leftover', () => {
    const n = mysqlOwnerNote('10.0.0.7', now);
    expect(n).toMatch(new RegExp(`^backupctl restore-test: host \\S+ pid ${process.pid} start \\d+ at ${at(now)} login-host 10\\.0\\.0\\.7$`));
    expect(judgeLeftovers([['backupctl_restore_0123456789', n]], now + 60_000)).toEqual([]);
    expect(judgeLeftovers([['backupctl_restore_0123456789', n]], now + LEFTOVER_AGE_MS + 3600_000)).toHaveLength(1);
  });

  test('the login of a scratch database is its hex; a name not ours has none', () => {
    expect(loginOf('backupctl_restore_0123456789')).toBe('backupctl_r_0123456789');
    expect(loginOf('backupctl-restore-0123456789')).toBeNull();
    expect(loginOf('backupctl_restore_0123456789x')).toBeNull();
  });
});

describe('the sweep of a later run', () => {
  /** An administrator's session that logs what it is sent; the answers by query. */
  function session(answers: Record<string, (string | null)[][]>, failDrop = 0): AdminSession & { said: string[] } {
    const said: string[] = [];
    let drops = 0;
    return {
      said,
      async rows(sql) {
        said.push(sql);
        for (const [k, v] of Object.entries(answers)) if (sql.includes(k)) return v;
        return [];
      },
      async exec(sql) {
        said.push(sql);
        if (sql.startsWith('DROP DATABASE') && drops++ < failDrop) throw Object.assign(new Error('x'), { sqlMessage: 'Lock wait timeout exceeded; try restarting transaction' });
        return {};
      },
    };
  }

  test('drops the leftover (its login at every host it has, events, threads, database) and says so; leaves the others', async () => {
    const gone = `backupctl restore-test: host elsewhere pid 1 start 1 at ${Math.floor((Date.now() - 2 * LEFTOVER_AGE_MS) / 1000)} login-host localhost`;
    const s = session({
      SCHEMATA: [
        ['backupctl_restore_00000dead0', gone],
        ['backupctl_restore_00000beef0', 'kept by hand'],
        ['backupctl_restore_00000cafe0', mysqlOwnerNote('localhost')],
      ],
      'mysql.user': [['localhost'], ['127.0.0.1']],
      PROCESSLIST: [['77']],
    });
    const warned: [string, string][] = [];
    await sweepMysqlLeftovers(s, (k, t) => warned.push([k, t]));
    expect(warned).toEqual([['orphan:backupctl_restore_00000dead0', 'removed the scratch database backupctl_restore_00000dead0 and its throwaway login backupctl_r_00000dead0 left by an earlier restore-test on the --into server (made 48 hours ago)']]);
    const sent = s.said.filter((x) => !x.startsWith('SELECT'));
    expect(sent).toEqual(["DROP USER IF EXISTS 'backupctl_r_00000dead0'@'localhost'", "DROP USER IF EXISTS 'backupctl_r_00000dead0'@'127.0.0.1'", 'KILL 77', 'KILL 77', 'DROP DATABASE IF EXISTS `backupctl_restore_00000dead0`']);
    // No login left (mysql.user lists none): the database alone is said; mysql.user unreadable: the note's host is tried.
    const none = session({ SCHEMATA: [['backupctl_restore_00000dead0', gone]] });
    const said: string[] = [];
    await sweepMysqlLeftovers(none, (_k, t) => said.push(t));
    expect(said).toEqual(['removed the scratch database backupctl_restore_00000dead0 left by an earlier restore-test on the --into server (made 48 hours ago)']);
    expect(none.said.filter((x) => x.startsWith('DROP USER'))).toEqual([]);
    const blind = session({ SCHEMATA: [['backupctl_restore_00000dead0', gone.replace('login-host localhost', 'login-host 10.1.2.3')]] });
    blind.rows = async (sql) => {
      blind.said.push(sql);
      if (sql.includes('mysql.user')) throw new Error('SELECT command denied');
      return sql.includes('SCHEMATA') ? [['backupctl_restore_00000dead0', gone.replace('login-host localhost', 'login-host 10.1.2.3')]] : [];
    };
    await sweepMysqlLeftovers(blind, () => {});
    expect(blind.said.filter((x) => x.startsWith('DROP USER'))).toEqual(["DROP USER IF EXISTS 'backupctl_r_00000dead0'@'10.1.2.3'"]);
    expect(s.said.join('\n')).not.toMatch(/beef|cafe0`/);
  });

  test('a drop that waits on a lock is tried again after killing the threads, a few rounds, then said', async () => {
    const l = { database: 'backupctl_restore_00000dead0', login: 'backupctl_r_00000dead0', hosts: ['localhost'], why: 'x' };
    const twice = session({ PROCESSLIST: [['5']] }, 2);
    expect(await dropLeftover(twice, l)).toEqual({ failed: null, login: false });
    const drop = 'DROP DATABASE IF EXISTS `backupctl_restore_00000dead0`';
    expect(twice.said.filter((x) => x.startsWith('KILL') || x.startsWith('DROP DATABASE'))).toEqual(['KILL 5', 'KILL 5', drop, 'KILL 5', 'KILL 5', drop, 'KILL 5', 'KILL 5', drop]);
    expect(await dropLeftover(session({}, 99), l)).toEqual({ failed: 'Lock wait timeout exceeded; try restarting transaction', login: false });
  });
});
