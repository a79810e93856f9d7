// The transport matrix (issue 42): restore-test --into a MariaDB and a
// PostgreSQL this file starts once each, listening on 127.0.0.1 (a free port)
// AND on a Unix socket, as administrators whose names hold `%`, `_` and `@`.
// Every run must pass (exit 0, the demo's 550 rows) and leave no throwaway
// login and no scratch database behind. Over TCP, MySQL/MariaDB never worked
// before issue 42.1: the throwaway login was made for the host 'b' (the first
// letter of USER()), and the run ended not-tested, exit 15.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { emulatorSession } from '../helpers/emulator.js';
import { startTestMariadb, startTestPostgres, type TestServer } from '../helpers/restore.js';

type Json = any;
const T = 180_000;
const { cli } = emulatorSession({ seed: 'demo', timeoutMs: 150_000 });

/** The demo's "shop mysql" backups are encrypted for this published demo key. */
const DEMO_KEY = path.join(ROOT, 'src/emulator/fixtures/demo-key/demo-private.pem');
const USERS = ['ad%min', 'ad_min', 'ad@min'] as const;
const PASSWORD = 'Adm1n-pw';

let my: TestServer;
let pg: TestServer;
let myBefore: string[];
let pgBefore: string[];

const lines = (s: string) => s.split('\n').map((l) => l.trim()).filter(Boolean).sort();
const myDatabases = () => lines(my.admin('SELECT schema_name FROM information_schema.schemata'));
const myLogins = () => lines(my.admin("SELECT CONCAT(User, '@', Host) FROM mysql.user"));
const pgDatabases = () => lines(pg.admin('SELECT datname FROM pg_database'));
const pgRoles = () => lines(pg.admin('SELECT rolname FROM pg_roles'));

beforeAll(async () => {
  [my, pg] = await Promise.all([startTestMariadb('Tester-pw-1', { tcp: true }), startTestPostgres('Tester-pw-1', { tcp: true })]);
  const sql: string[] = [];
  for (const u of USERS) {
    for (const host of ['localhost', '127.0.0.1']) {
      sql.push(`CREATE USER '${u}'@'${host}' IDENTIFIED BY '${PASSWORD}'`, `GRANT ALL PRIVILEGES ON *.* TO '${u}'@'${host}' WITH GRANT OPTION`);
    }
    pg.admin(`CREATE ROLE "${u}" LOGIN CREATEROLE CREATEDB PASSWORD '${PASSWORD}'`);
  }
  my.admin(sql.join(';\n') + ';\n');
  myBefore = [...myDatabases(), '--', ...myLogins()];
  pgBefore = [...pgDatabases(), '--', ...pgRoles()];
}, T);

afterAll(async () => {
  await Promise.all([my?.stop(), pg?.stop()]);
});

const enc = (u: string) => encodeURIComponent(u);

function myUrl(user: string, transport: 'tcp' | 'socket'): string {
  return transport === 'tcp' ? `mysql://${enc(user)}:${PASSWORD}@127.0.0.1:${my.port}/` : `mysql://${enc(user)}:${PASSWORD}@localhost/?socket=${my.dir}/sock`;
}

function pgUrl(user: string, transport: 'tcp' | 'socket'): string {
  return transport === 'tcp' ? `postgres://${enc(user)}:${PASSWORD}@127.0.0.1:${pg.port}/postgres` : `postgres://${enc(user)}:${PASSWORD}@/postgres?host=${pg.dir}&port=${pg.port}`;
}

const CASES = (['tcp', 'socket'] as const).flatMap((t) => USERS.map((u) => [t, u] as const));

describe('restore-test --into MySQL/MariaDB', () => {
  it.each(CASES)('over %s as %s: passed, the dump ran as a throwaway login, nothing left', async (transport, user) => {
    const r = await cli(['restore-test', 'shop mysql', '--private-key', DEMO_KEY, '--engine', 'server', '--json'], { BACKUPCTL_RESTORE_URL: myUrl(user, transport) });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as Json;
    expect(doc.verdict).toBe('passed');
    expect(doc.backups[0].files[0]).toMatchObject({ verdict: 'restored', rows: 550, engine: { mode: 'server', product: 'MariaDB', rights: expect.stringMatching(/^a throwaway login backupctl_r_/) } });
    expect([...myDatabases(), '--', ...myLogins()]).toEqual(myBefore);
  }, T);
});

describe('restore-test --into PostgreSQL', () => {
  it.each(CASES)('over %s as %s: passed, the dump ran as a throwaway login, nothing left', async (transport, user) => {
    const r = await cli(['restore-test', 'api postgres', '--engine', 'server', '--json'], { BACKUPCTL_RESTORE_URL: pgUrl(user, transport) });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as Json;
    expect(doc.verdict).toBe('passed');
    expect(doc.backups[0].files[0]).toMatchObject({ verdict: 'restored', rows: 550, engine: { mode: 'server', product: 'PostgreSQL', rights: expect.stringMatching(/throwaway login backupctl_r_/) } });
    expect([...pgDatabases(), '--', ...pgRoles()]).toEqual(pgBefore);
  }, T);
});
