// Issue 45 against a real MariaDB with its event scheduler on (as MySQL 8's is
// by default): a tampered dump must not reach a sibling of its scratch database
// through the `_` wildcard of a grant (45.2), an event holding a lock must not
// hang the cleanup (45.3), and a dump that makes data of its own is stopped by
// BACKUPCTL_RESTORE_MAX_DISK, on an --into server and on the ephemeral local
// server (45.5). Each case checks the server afterwards: databases, logins,
// events and threads, not only the verdict.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { createSqlRestoreSink } from '../../src/restore/sql/sink.js';
import { startHostileMariadb, type HostileMariadb } from '../helpers/mariadb.js';
import { feed, options } from '../helpers/restore.js';
import { until } from '../helpers/spawn.js';

const T = 180_000;
let my: HostileMariadb;
let before: string[];

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

/** Nothing of a run is left: no database but those before, no throwaway login, no event, no thread. */
function expectNothingLeft(): void {
  expect(databases()).toEqual(before);
  expect(my.users('backupctl\\_r\\_%')).toEqual([]);
  expect(events()).toEqual([]);
  expect(threads()).toEqual([]);
}

function dump(body: string): Buffer {
  return Buffer.from('-- MariaDB dump 10.19  Distrib 10.11.19-MariaDB\n/*!40101 SET NAMES utf8mb4 */;\n' + body);
}

const within = <T>(p: Promise<T>, ms: number): Promise<T | 'still running'> => Promise.race([p, new Promise<'still running'>((r) => setTimeout(() => r('still running'), ms))]);

describe('the grant on the scratch database (issue 45.2)', () => {
  it('escapes _ : the dump cannot create backupctl-restore-<hex> beside it, with a table and an event; nothing is left', async () => {
    const sibling = (stmt: string) => `SET @s = CONCAT(${stmt});\nPREPARE p FROM @s;\nEXECUTE p;\n`;
    const r = await feed(
      createSqlRestoreSink(options({ engine: 'server', into: my.bossUrl }), 'mysql'),
      dump(
        'CREATE TABLE `t` (`id` int NOT NULL, PRIMARY KEY (`id`));\nINSERT INTO `t` VALUES (1),(2);\n' +
          "SET @sib = REPLACE(DATABASE(), '_', '-');\n" +
          sibling("'CREATE DATABASE `', @sib, '`'") +
          sibling("'CREATE TABLE `', @sib, '`.x (id int)'") +
          sibling("'CREATE EVENT `', @sib, '`.e ON SCHEDULE EVERY 1 SECOND DO INSERT INTO `', @sib, '`.x VALUES (1)'") +
          'INSERT INTO `t` VALUES (3);\n',
      ),
    );
    expect(r.verdict).toBe('failed');
    expect(r.failure!.message).toMatch(/Access denied .*backupctl-restore-/);
    expectNothingLeft();
  }, T);
});

describe('cleanup with an event holding a lock (issue 45.3)', () => {
  const HOLD =
    'CREATE TABLE `t` (`id` int NOT NULL, PRIMARY KEY (`id`));\nINSERT INTO `t` VALUES (1),(2),(3);\n' +
    // Fires every second; each run holds a metadata lock on t for ten minutes: DROP DATABASE waits behind it.
    'CREATE EVENT hold ON SCHEDULE EVERY 1 SECOND DO SELECT SLEEP(600) FROM t LIMIT 1 INTO @x;\n' +
    'DO SLEEP(2.5);\n';

  it('the restore ends within seconds (it waited lock_wait_timeout, a day), and the database, the login, the event and its threads are gone', async () => {
    const t0 = Date.now();
    const r = await within(feed(createSqlRestoreSink(options({ engine: 'server', into: my.bossUrl }), 'mysql'), dump(HOLD)), 60_000);
    expect(r, 'restore-test still cleaning up after 60 s').not.toBe('still running');
    expect(Date.now() - t0).toBeLessThan(60_000);
    expect(r).toMatchObject({ verdict: 'restored', warnings: expect.not.arrayContaining([expect.stringMatching(/could not drop/)]) });
    expectNothingLeft();
  }, T);

  it('Ctrl-C while the event holds its lock: the abort ends within seconds, and nothing is left', async () => {
    const ac = new AbortController();
    const done = feed(createSqlRestoreSink(options({ engine: 'server', into: my.bossUrl, signal: ac.signal }), 'mysql'), dump(`${HOLD}DO SLEEP(60);\n`)).then(
      (r) => r,
      (e: Error) => e,
    );
    // The event's thread is sleeping in the scratch database: it holds the lock.
    await until(() => my.admin("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT SLEEP(600)%'").trim() !== '0', 60_000);
    const t0 = Date.now();
    ac.abort(new Error('Interrupted'));
    const r = await within(done, 30_000);
    expect(r, 'the abort still cleaning up after 30 s').not.toBe('still running');
    expect(Date.now() - t0).toBeLessThan(30_000);
    expectNothingLeft();
  }, T);
});

describe('BACKUPCTL_RESTORE_MAX_DISK (issue 45.5)', () => {
  // MariaDB's sequence engine: a line that makes 25 GB of rows out of nothing.
  const BOMB = 'CREATE TABLE `big` (`id` bigint NOT NULL, `pad` char(255) NOT NULL);\nINSERT INTO `big` SELECT seq, REPEAT(\'x\', 255) FROM seq_1_to_100000000;\n';

  it('--into: a dump that makes data of its own is stopped at the budget and fails; the scratch database and the login are gone', async () => {
    const t0 = Date.now();
    const r = await within(feed(createSqlRestoreSink(options({ engine: 'server', into: my.bossUrl, env: { PATH: process.env.PATH, BACKUPCTL_RESTORE_MAX_DISK: '100MiB' } }), 'mysql'), dump(BOMB)), 90_000);
    expect(r, 'still restoring after 90 s').not.toBe('still running');
    if (r === 'still running') return;
    expect(r.verdict).toBe('failed');
    expect(r.failure!.untested).toBeUndefined();
    expect(r.failure!.message).toMatch(/the dump made .* of data in the scratch database backupctl_restore_\w+ from .* of text .*BACKUPCTL_RESTORE_MAX_DISK=100 MiB/);
    expect(Date.now() - t0).toBeLessThan(90_000);
    expectNothingLeft();
  }, T);

  it('--into: a plain dump larger than the budget is not-tested (a backup that needs more room is no bad backup)', async () => {
    const rows = Array.from({ length: 200 }, (_, i) => `INSERT INTO \`t\` VALUES ${Array.from({ length: 100 }, (_, j) => `(${i * 100 + j},'${'y'.repeat(200)}')`).join(',')};`).join('\n');
    const r = await feed(
      createSqlRestoreSink(options({ engine: 'server', into: my.bossUrl, env: { PATH: process.env.PATH, BACKUPCTL_RESTORE_MAX_DISK: '1MiB' } }), 'mysql'),
      dump(`CREATE TABLE \`t\` (\`id\` int NOT NULL, \`pad\` varchar(255), PRIMARY KEY (\`id\`));\n${rows}\n`),
    );
    expect(r.verdict).toBe('failed');
    expect(r.failure).toMatchObject({ untested: true, message: expect.stringMatching(/the restore needs more disk than BACKUPCTL_RESTORE_MAX_DISK=1\.0 MiB allows .*not tested; raise it/) });
    expectNothingLeft();
  }, T);

  it('the ephemeral local MariaDB: its data folder is watched; the bomb stops at the budget, the server and its folder are gone', async () => {
    const t0 = Date.now();
    const sink = createSqlRestoreSink(options({ engine: 'local', env: { PATH: process.env.PATH, BACKUPCTL_RESTORE_MAX_DISK: '100MiB' } }), 'mysql');
    const r = await within(feed(sink, dump(BOMB)), 150_000);
    expect(r, 'still restoring after 150 s').not.toBe('still running');
    if (r === 'still running') return;
    expect(r.verdict).toBe('failed');
    expect(r.engine).toMatchObject({ name: 'mysql', runs: 'local' });
    expect(r.failure!.message).toMatch(/the dump made .* of data in the data folder of the local MariaDB .*BACKUPCTL_RESTORE_MAX_DISK=100 MiB/);
    expect(Date.now() - t0).toBeLessThan(150_000);
    const { activeEphemeralServers } = await import('../../src/restore/servers/ephemeral.js');
    for (const s of activeEphemeralServers()) expect(existsSync(s.dir), s.dir).toBe(false);
  }, T);
});
