// What a killed restore-test leaves on an --into MariaDB/MySQL (issue 45.4), as pg-guardian.ts for PostgreSQL:
// a guardian that cleans up once backupctl is gone (SIGKILL, a crash), and the rule by which a later run knows an
// earlier run's leftovers. The scratch database `backupctl_restore_<hex>` carries the owner's note as its COMMENT
// (MariaDB 10.5+; MySQL has no database comment: there the guardian alone cleans up); its throwaway login is
// `backupctl_r_<hex>`, the same hex, so the login of a leftover database is known without trusting the note.
import { spawn, type ChildProcess } from 'node:child_process';
import { leftoverReason, ownerNote } from './pg-guardian.js';

const SCRATCH = /^backupctl_restore_([0-9a-f]{10})$/;

/** The throwaway login that belongs to a scratch database (the same hex), or null for a name that is not ours. */
export function loginOf(database: string): string | null {
  const m = SCRATCH.exec(database);
  return m ? `backupctl_r_${m[1]}` : null;
}

/** The COMMENT of a scratch database: who made it and when (pg-guardian.ts ownerNote), and the host its login was made for. */
export function mysqlOwnerNote(loginHost: string, now = Date.now()): string {
  return `${ownerNote(now)} login-host ${loginHost}`;
}

export interface MysqlLeftover {
  database: string;
  /** Its throwaway login, and the hosts it may have been made for (the note's; more when mysql.user can be read). */
  login: string;
  hosts: string[];
  why: string;
}

/**
 * Which `backupctl_restore_*` databases (name, COMMENT) are leftovers of an earlier run: our name exactly
 * (backupctl_restore_ and ten hex digits), our note, and the run that made it gone or the database older than
 * LEFTOVER_AGE_MS (pg-guardian.ts leftoverReason). A database without our note is never judged, whatever its name.
 */
export function judgeLeftovers(
  rows: (string | null)[][],
  now: number,
  here?: { host: string; startOf: (pid: number) => string | null },
): MysqlLeftover[] {
  const out: MysqlLeftover[] = [];
  for (const [database, comment] of rows) {
    if (!database) continue;
    const login = loginOf(database);
    const m = /^(backupctl restore-test: .*) login-host (\S+)$/.exec(comment ?? '');
    if (!login || !m) continue;
    const why = leftoverReason(m[1]!, now, here);
    if (why) out.push({ database, login, hosts: [m[2]!], why });
  }
  return out;
}

/** The administrator's session, as mysql.ts gives it: rows as text, and a statement that may fail. */
export interface AdminSession {
  rows(sql: string): Promise<(string | null)[][]>;
  exec(sql: string): Promise<unknown>;
}

const q = (ident: string) => `\`${ident.replace(/`/g, '``')}\``;
const lit = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** Rounds of drop events, kill threads, drop database (an event firing every second takes the lock again). */
const ROUNDS = 4;

/**
 * Drops a scratch database and its login as the cleanup of a run does (mysql.ts doClose): the login first (no
 * new session, no event runs as it), every thread of the login or in the database, events, the threads again
 * (an event that had just started), the database;
 * the session's lock waits are short (mysql.ts sets lock_wait_timeout). failed: null, or why it could not; login:
 * whether there was a login (mysql.user lists it, or cannot be read: then the note's host is tried).
 */
export async function dropLeftover(admin: AdminSession, l: MysqlLeftover): Promise<{ failed: string | null; login: boolean }> {
  const listed = await admin.rows(`SELECT Host FROM mysql.user WHERE User = ${lit(l.login)}`).catch(() => null);
  const hosts = listed ? listed.map(([h]) => h).filter((h): h is string => h !== null) : l.hosts;
  for (const h of new Set(hosts)) await admin.exec(`DROP USER IF EXISTS ${lit(l.login)}@${lit(h)}`).catch(() => {});
  const login = hosts.length > 0;
  const kill = async () => {
    const ids = await admin.rows(`SELECT ID FROM information_schema.PROCESSLIST WHERE (USER = ${lit(l.login)} OR DB = ${lit(l.database)}) AND ID <> CONNECTION_ID()`).catch(() => []);
    for (const [id] of ids) if (Number(id) > 0) await admin.exec(`KILL ${Number(id)}`).catch(() => {});
  };
  let last: unknown = null;
  for (let round = 0; round < ROUNDS; round++) {
    // A running event holds its own lock (DROP EVENT waits on it): its thread goes first, then the event.
    await kill();
    for (const [name] of await admin.rows(`SELECT EVENT_NAME FROM information_schema.EVENTS WHERE EVENT_SCHEMA = ${lit(l.database)}`).catch(() => [])) {
      if (name !== null) await admin.exec(`DROP EVENT IF EXISTS ${q(l.database)}.${q(name)}`).catch(() => {});
    }
    await kill();
    try {
      await admin.exec(`DROP DATABASE IF EXISTS ${q(l.database)}`);
      return { failed: null, login };
    } catch (e) {
      last = e;
    }
  }
  const x = last as { sqlMessage?: string; message?: string } | null;
  return { failed: x?.sqlMessage ?? x?.message ?? String(last), login };
}

/**
 * Scratch databases and logins an earlier run left on the --into server (killed before it or its guardian could
 * drop them): found by name prefix, judged by the note and age (judgeLeftovers), dropped, each said. A server
 * without database comments (MySQL) answers no note: nothing is judged there.
 */
export async function sweepMysqlLeftovers(admin: AdminSession, warn: (key: string, text: string) => void, now = Date.now()): Promise<void> {
  const rows = await admin.rows("SELECT SCHEMA_NAME, SCHEMA_COMMENT FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'backupctl\\_restore\\_%'").catch(() => []);
  for (const l of judgeLeftovers(rows, now)) {
    const { failed, login } = await dropLeftover(admin, l);
    const what = login ? `the scratch database ${l.database} and its throwaway login ${l.login}` : `the scratch database ${l.database}`;
    warn(
      `orphan:${l.database}`,
      failed ? `found ${what} left by an earlier restore-test (${l.why}), and could not remove the database: ${failed}` : `removed ${what} left by an earlier restore-test on the --into server (${l.why})`,
    );
  }
}

/** How the guardian reaches the server (the administrator): in its environment, never on a command line. */
export interface GuardConn {
  socketPath?: string;
  host?: string;
  port?: number;
  user: string;
  password?: string;
}

// The guardian's cleanup, run by node once backupctl is gone: dropLeftover's steps, on its own connection (mysql2,
// the driver backupctl loaded, by its path), each statement bounded, the whole bounded too.
const GUARD_JS = `
const o = JSON.parse(process.env.BACKUPCTL_GUARD);
const q = (s) => '\`' + s.replace(/\`/g, '\`\`') + '\`';
const lit = (s) => "'" + s.replace(/\\\\/g, '\\\\\\\\').replace(/'/g, "''") + "'";
setTimeout(() => process.exit(2), 120000).unref();
(async () => {
  const m = require(process.env.BACKUPCTL_MYSQL2);
  const c = await m.createConnection({ ...o.conn, flags: ['-LOCAL_FILES', '-MULTI_STATEMENTS', '-CONNECT_ATTRS'], multipleStatements: false, connectTimeout: 15000 });
  c.on('error', () => {});
  const run = (sql) => c.query({ sql, timeout: 15000, rowsAsArray: true }).then((r) => r[0] || [], () => null);
  await run("SET SESSION sql_mode = REPLACE(@@SESSION.sql_mode, 'NO_BACKSLASH_ESCAPES', '')");
  await run('SET SESSION lock_wait_timeout = 3');
  if (o.login) for (const h of o.hosts) await run('DROP USER IF EXISTS ' + lit(o.login) + '@' + lit(h));
  const who = o.login ? 'USER = ' + lit(o.login) + ' OR ' : '';
  const kill = async () => {
    for (const [id] of (await run('SELECT ID FROM information_schema.PROCESSLIST WHERE (' + who + 'DB = ' + lit(o.db) + ') AND ID <> CONNECTION_ID()')) || []) await run('KILL ' + Number(id));
  };
  for (let i = 0; i < 6; i++) {
    await kill();
    for (const [n] of (await run('SELECT EVENT_NAME FROM information_schema.EVENTS WHERE EVENT_SCHEMA = ' + lit(o.db))) || []) await run('DROP EVENT IF EXISTS ' + q(o.db) + '.' + q(String(n)));
    await kill();
    if ((await run('DROP DATABASE IF EXISTS ' + q(o.db))) !== null) break;
  }
  c.destroy();
})().then(() => process.exit(0), () => process.exit(1));
`;

/** Whether this is the single executable: its process.execPath runs backupctl, not a node that would run -e. */
function inSea(): boolean {
  try {
    return (process as unknown as { getBuiltinModule?: (m: string) => { isSea?: () => boolean } | undefined }).getBuiltinModule?.('node:sea')?.isSea?.() === true;
  } catch {
    return false;
  }
}

/**
 * The guardian of an --into MariaDB/MySQL restore (sh, in its own process group: Ctrl-C does not reach it).
 * While backupctl runs it only waits; once backupctl is gone it runs node with GUARD_JS: the login dropped, its
 * threads (the dump's session, the events') killed, events dropped, the threads again, then the database. The caller kills it once
 * it has cleaned up itself. None in the single executable (no node to run it): a later run's sweep is left there.
 */
export function startMysqlGuardian(o: { conn: GuardConn; database: string; login: string | null; hosts: string[]; mysql2: string; owner?: number; node?: string }): ChildProcess | null {
  if (!o.node && inSea()) return null;
  const script = 'while kill -0 "$OWNER" 2>/dev/null; do sleep 0.3; done\nexec "$NODE" -e "$JS"\n';
  const conn: GuardConn = { user: o.conn.user, password: o.conn.password ?? '' };
  if (o.conn.socketPath) conn.socketPath = o.conn.socketPath;
  else conn.host = o.conn.host ?? 'localhost';
  if (o.conn.port && !o.conn.socketPath) conn.port = o.conn.port;
  try {
    const g = spawn('/bin/sh', ['-c', script], {
      detached: true,
      stdio: 'ignore',
      env: {
        PATH: '/usr/bin:/bin',
        OWNER: String(o.owner ?? process.pid),
        NODE: o.node ?? process.execPath,
        JS: GUARD_JS,
        BACKUPCTL_MYSQL2: o.mysql2,
        BACKUPCTL_GUARD: JSON.stringify({ conn, db: o.database, login: o.login, hosts: o.hosts }),
      },
    });
    g.on('error', () => {});
    g.unref();
    return g;
  } catch {
    return null;
  }
}
