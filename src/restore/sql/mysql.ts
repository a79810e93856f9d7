// MySQL and MariaDB over the wire protocol (mysql2, loaded here only, in the
// restore path): a scratch database on the user's server (--into mysql://...)
// or on an ephemeral local server (mariadb-local.ts). No program that
// interprets client commands ever reads a dump byte (issue 28 §2): each
// statement the reader splits goes to the server as one COM_QUERY, so
// `system`, `source`, `tee`, `connect`, `\!` are SQL syntax errors, never
// commands; LOAD DATA LOCAL is off twice (the LOCAL_FILES capability is not
// announced, so the server refuses it, and no infile stream factory is given).
//
// Confinement comes from the server's privileges (issue 28 §1): the dump's
// session logs in as a throwaway login (random name and password) whose only
// grant is ALL on the scratch schema: no FILE, SUPER, PROCESS, CREATE USER,
// GRANT OPTION, nothing on mysql.* or any other schema. The administrator
// connection (the --into user, or root of the ephemeral server) creates the
// schema and the login, stays open while the dump runs, and drops both
// afterwards, on abort too. A --into user that cannot create logins is used
// itself only when SHOW GRANTS shows that its rights reach nothing but
// backupctl_restore_* schemas, or with --trust-into-user.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { userInfo } from 'node:os';
import path from 'node:path';
import type { Connection, ConnectionOptions } from 'mysql2/promise';
import type { EngineInfo, Placement } from '../types.js';
import type { ContentKind } from '../../pipeline/kinds.js';
import type { PipedClient } from './client.js';
import type { EngineOptions, EnginePlan, OpenContext, SqlEngine } from './engine.js';
import { findMyServer, MARIADB_ACCOUNT, startLocalMysql } from './mariadb-local.js';
import { serverAccount } from '../servers/ephemeral.js';
import { loginOf, mysqlOwnerNote, startMysqlGuardian, sweepMysqlLeftovers, type AdminSession } from './mysql-guardian.js';
import { randomName, redact } from '../servers/proc.js';
import { EngineUnavailableError, RestoreError, type SqlTarget, type TargetCaps } from './target.js';
import { folderBytes, maxDiskFromEnv, watchDisk, type DiskOver } from '../disk-budget.js';
import type { ParsedUrl } from '../servers/url.js';

/** How to reach a server: never printed (the password is a secret). */
export interface MyConn {
  socketPath?: string;
  host?: string;
  port?: number;
  user: string;
  password?: string;
  secrets: string[];
}

/** The driver: mysql2 over the wire protocol. Null when it cannot be loaded. */
export interface MyClient {
  driver: 'mysql2';
  version: string;
}

type Mysql2 = typeof import('mysql2/promise');
let mysql2: Promise<Mysql2 | null> | null = null;

/** The package name: a variable, so esbuild leaves it out of the bundle (1 MB); a clone has it, an installed backupctl finds one installed beside it. */
export const MYSQL2_PACKAGE = 'mysql2/promise';

/** The single executable's copy of mysql2 (an asset of its blob, src/scripts/sea.mjs), compiled as a module. */
export const SEA_MYSQL2_ASSET = 'mysql2/promise.cjs';

function mysql2FromSea(): Mysql2 | null {
  const req = createRequire(import.meta.url);
  const sea = req('node:sea') as typeof import('node:sea');
  if (!sea.isSea()) return null;
  const source = sea.getAsset(SEA_MYSQL2_ASSET, 'utf8');
  const { Module } = req('node:module') as typeof import('node:module');
  const file = path.join(path.dirname(process.execPath), SEA_MYSQL2_ASSET);
  const mod = new Module(file) as InstanceType<typeof Module> & { _compile(code: string, filename: string): void; exports: Mysql2 };
  mod.filename = file;
  // The bundle requires only Node's own modules.
  mod._compile(source, file);
  return mod.exports;
}

function loadMysql2(): Promise<Mysql2 | null> {
  mysql2 ??= (async () => {
    try {
      const name = MYSQL2_PACKAGE;
      const m = createRequire(import.meta.url)(name) as Mysql2 & { default?: Mysql2 };
      return m.default ?? m;
    } catch {
      try {
        return mysql2FromSea();
      } catch {
        return null;
      }
    }
  })();
  return mysql2;
}

/** Where the driver is: the guardian's node loads it from there. */
function mysql2Path(): string {
  try {
    return createRequire(import.meta.url).resolve(MYSQL2_PACKAGE);
  } catch {
    return MYSQL2_PACKAGE;
  }
}

export async function findMyClient(): Promise<MyClient | null> {
  const m = await loadMysql2();
  return m ? { driver: 'mysql2', version: 'wire protocol' } : null;
}

export function myConnFromUrl(u: ParsedUrl): MyConn {
  const conn: MyConn = { user: u.user ?? safeUserName(), secrets: u.password ? [u.password] : [] };
  if (u.socket) conn.socketPath = u.socket;
  else conn.host = u.host && u.host !== '' ? u.host : 'localhost';
  // A socket URL keeps its port (issue 29): the server ignores it on a socket, a TCP fallback does not.
  if (u.port) conn.port = u.port;
  if (u.password !== undefined) conn.password = u.password;
  return conn;
}

function safeUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'root';
  }
}

/** A connection that can run nothing but SQL: no LOCAL INFILE, no multiple statements, every value as text. */
async function connect(conn: MyConn, database?: string): Promise<Connection> {
  const m = await loadMysql2();
  if (!m) throw new EngineUnavailableError('the mysql2 driver is not installed (beside an installed backupctl: npm install -g mysql2)');
  const opts: ConnectionOptions = {
    user: conn.user,
    password: conn.password ?? '',
    flags: ['-LOCAL_FILES', '-MULTI_STATEMENTS', '-CONNECT_ATTRS'],
    multipleStatements: false,
    // Every text goes to the server as it is: no placeholder substitution (the driver's format() scanned each
    // statement of the dump for `?`, a third of the client's CPU on an extended INSERT), nothing is ever bound.
    queryFormat: ((sql: string) => sql) as unknown as ConnectionOptions['queryFormat'],
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
    connectTimeout: 30_000,
    charset: 'UTF8MB4_GENERAL_CI',
  };
  if (conn.socketPath) opts.socketPath = conn.socketPath;
  else opts.host = conn.host ?? 'localhost';
  if (conn.port && !conn.socketPath) opts.port = conn.port;
  if (database) opts.database = database;
  try {
    const c = await m.createConnection(opts);
    // A server-side error on an idle connection must not crash the process.
    c.on('error', () => {});
    return c;
  } catch (e) {
    throw new EngineUnavailableError(`cannot connect to the MySQL/MariaDB server: ${redact(errText(e), conn.secrets)}`);
  }
}

function errText(e: unknown): string {
  const x = e as { errno?: number; sqlState?: string; sqlMessage?: string; message?: string; code?: string };
  if (x && typeof x.sqlMessage === 'string') return `ERROR ${x.errno ?? ''} (${x.sqlState ?? 'HY000'}): ${x.sqlMessage}`;
  return (x?.message ?? String(e)).trim() || (x?.code ?? 'the driver failed');
}

function q(ident: string): string {
  return `\`${ident.replace(/`/g, '``')}\``;
}

function lit(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * A schema name as a GRANT reads it: `_` and `%` are LIKE wildcards there (issue 45.2: ALL on
 * `backupctl_restore_<hex>`.* let the dump create `backupctl-restore-<hex>` beside it), so each is
 * escaped, and the escape itself. MySQL 8 with partial_revokes reads the name literally: as it is.
 */
export function grantSchema(db: string, literal = false): string {
  return q(literal ? db : db.replace(/[\\_%]/g, (c) => `\\${c}`));
}

/**
 * The host the server sees this connection come from, from USER() ('name@host'; a name may hold
 * '@', a host never does): the part after the LAST '@' (issue 42.1: the first letter of USER() was
 * taken, and every TCP --into failed). Never a pattern: a '%' there is refused.
 */
export function connectionHost(user: string | null | undefined): string {
  const text = user ?? '';
  const at = text.lastIndexOf('@');
  const host = at < 0 ? '' : text.slice(at + 1);
  if (!host) return 'localhost';
  if (host.includes('%')) throw new EngineUnavailableError(`the server names the host of this connection ${JSON.stringify(host)}, a pattern: no throwaway login is made for it`);
  return host;
}

/** The first cell of every row, as text. */
async function cells(c: Connection, sql: string): Promise<(string | null)[][]> {
  const [rows] = await c.query({ sql, rowsAsArray: true, typeCast: (field: { string(): string | null }) => field.string() } as never);
  return (rows as unknown as (string | null)[][]) ?? [];
}

/** What a login's grants reach, from SHOW GRANTS (issue 28 §1): null when only backupctl_restore_* schemas, else the first grant that reaches further. */
export function grantsReachBeyondScratch(grants: string[]): string | null {
  for (const g of grants) {
    const text = g.replace(/\s+IDENTIFIED\s+(BY|VIA|WITH)\s[\s\S]*$/i, '').trim();
    if (/\bWITH\s+GRANT\s+OPTION\b/i.test(g)) return `${clip(text)} (WITH GRANT OPTION)`;
    const m = /^GRANT\s+([\s\S]+?)\s+ON\s+(?:(?:TABLE|FUNCTION|PROCEDURE|PACKAGE(?:\s+BODY)?)\s+)?(\S+)\s+TO\s/i.exec(text);
    if (!m) return clip(text); // a role, PROXY, anything we cannot read
    const privs = m[1]!.trim();
    const on = m[2]!;
    if (on === '*.*' || on === '*') {
      if (/^USAGE$/i.test(privs)) continue;
      return clip(text);
    }
    const schema = /^`((?:[^`]|``)+)`/.exec(on)?.[1]?.replace(/``/g, '`') ?? on.split('.')[0]!;
    // As a LIKE pattern: its literal start must be backupctl_restore_ (\_ is a literal underscore).
    const literal = schema.replace(/\\_/g, '_').replace(/\\%/g, '%');
    if (literal.startsWith('backupctl_restore_')) continue;
    return clip(text);
  }
  return null;
}

function clip(s: string): string {
  const t = s.replace(/\s+TO\s+[\s\S]*$/i, '');
  return t.length > 120 ? `${t.slice(0, 117)}...` : t;
}

export interface MyOpenOptions {
  /** --trust-into-user: restore as a --into user that cannot create logins, whatever its grants. */
  trustIntoUser?: boolean;
  /** The command's environment (BACKUPCTL_RESTORE_MAX_DISK). */
  env?: NodeJS.ProcessEnv;
  /** An ephemeral server's data folder (its size is the disk the restore takes) and its private folder (the free-space floor). */
  dataDir?: string;
  serverDir?: string;
  /** Ctrl-C, SIGTERM, --timeout: the cleanup is cut short too. */
  signal?: AbortSignal;
  /** A warning for the result (an earlier run's leftover removed). */
  warn?: (key: string, text: string) => void;
}

/** Seconds the administrator's session waits for a lock (its DROP DATABASE behind an event's lock): never lock_wait_timeout's day. */
const LOCK_WAIT_S = 3;
/** The longest one cleanup statement may take on the client's side (a server that does not answer). */
const CLEANUP_STATEMENT_MS = 15_000;
/** Rounds of kill, drop events, drop database while a lock holder comes back (an event firing every second). */
const DROP_ROUNDS = 4;

export class MysqlTarget implements SqlTarget {
  readonly dialect = 'mysql' as const;
  private session: Connection | null = null;
  private inflight: Promise<void> | null = null;
  private error: RestoreError | null = null;
  private delimiter = ';';
  private closed = false;
  private closing: Promise<string[]> | null = null;
  /**
   * Ends the statement in flight as stopped; close() calls it once it has let go of the session. mysql2 never
   * settles a query that is still out when its connection is destroyed (its 'close' handler returns early once
   * destroy() has begun): a statement the server was holding (init_connect, a lock) when Ctrl-C came kept
   * finish() waiting on nothing, the event loop ran dry, and the process exited 0 without a word instead of 130.
   * One per statement, dropped when it settles: a reaction per statement on one shared promise (as before)
   * kept every statement's text until the end, 327 MB of RSS for a 200 MB dump.
   */
  private stopCurrent: (() => void) | null = null;
  /** --into: drops the scratch database and the login if backupctl is killed (mysql-guardian.ts); killed once close() is done. */
  private guardian: ChildProcess | null = null;

  private constructor(
    private readonly admin: Connection,
    private readonly conn: MyConn,
    /** The login the dump's session uses (the throwaway one, or the --into user itself). */
    private readonly login: MyConn,
    /** The throwaway login to drop, 'user'@'host' quoted; null when the --into user restores itself. */
    private readonly throwaway: string | null,
    /** The throwaway login's name (its threads are killed before the drop). */
    private readonly throwawayName: string | null,
    readonly database: string,
    readonly info: EngineInfo,
    readonly caps: TargetCaps,
    private readonly onClose: () => Promise<void>,
    private readonly signal?: AbortSignal,
  ) {}

  /** The dump's text sent so far (the disk budget's judgement of a dump that makes data of its own). */
  private sent = 0;
  private disk: { stop(): void; check(): Promise<DiskOver | null> } | null = null;

  /**
   * The disk budget (issue 45.5, src/restore/disk-budget.ts): the scratch database's size is measured while
   * the dump runs (an ephemeral server: its data folder, and the free space of its file system; --into: the
   * sizes the server's catalog reports), and a restore over BACKUPCTL_RESTORE_MAX_DISK is stopped.
   */
  async watchDisk(opts: MyOpenOptions): Promise<void> {
    const max = maxDiskFromEnv(opts.env);
    let measure: () => Promise<number | null>;
    let where: string;
    if (opts.dataDir) {
      const dataDir = opts.dataDir;
      const base = await folderBytes(dataDir);
      measure = async () => Math.max(0, (await folderBytes(dataDir)) - base);
      where = `the data folder of the local ${this.info.product}`;
    } else {
      measure = () => this.scratchBytes();
      where = `the scratch database ${this.database}`;
    }
    this.disk = watchDisk({ measure, max, where, dumpBytes: () => this.sent, floorDir: opts.serverDir, onOver: (over) => void this.overDisk(over) });
  }

  /** The scratch database's size as the server reports it: its tables' data and indexes, and InnoDB's files of them (the larger). */
  private async scratchBytes(): Promise<number | null> {
    if (this.closed) return null;
    const [tables] = await cells(this.admin, `SELECT COALESCE(SUM(DATA_LENGTH + INDEX_LENGTH), 0) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ${lit(this.database)}`);
    const like = lit(`${this.database.replace(/[\\_%]/g, (c) => `\\${c}`)}/%`);
    let files = 0;
    for (const view of ['INNODB_SYS_TABLESPACES', 'INNODB_TABLESPACES']) {
      try {
        const [row] = await cells(this.admin, `SELECT COALESCE(SUM(GREATEST(FILE_SIZE, ALLOCATED_SIZE)), 0) FROM information_schema.${view} WHERE NAME LIKE ${like}`);
        files = Number(row?.[0] ?? 0);
        break;
      } catch {
        /* MySQL's name, or MariaDB's, or no PROCESS privilege */
      }
    }
    return Math.max(Number(tables?.[0] ?? 0), files);
  }

  /** Over the budget: the restore stops (its statement killed); not-tested, unless the dump made the data itself (failed). */
  private async overDisk(over: DiskOver): Promise<void> {
    if (this.closed || this.error) return;
    this.error = over.hostile ? new RestoreError(over.message) : new EngineUnavailableError(over.message);
    const id = this.session?.threadId;
    if (id) await this.adminQuery(`KILL QUERY ${Number(id)}`).catch(() => {});
    this.stopCurrent?.();
  }

  /** A statement of the administrator's, bounded on the client's side too. */
  private adminQuery(sql: string): Promise<unknown> {
    return this.admin.query({ sql, timeout: CLEANUP_STATEMENT_MS });
  }

  static async open(_client: MyClient, conn: MyConn, runs: Placement, onClose: () => Promise<void>, opts: MyOpenOptions = {}): Promise<MysqlTarget> {
    const admin = await connect(conn);
    let database: string | null = null;
    let throwaway: string | null = null;
    let guarded: ChildProcess | null = null;
    try {
      // The administrator's session: backslash escapes as lit() and grantSchema() write them, whatever the server's
      // sql_mode; short lock waits, so that its DROP DATABASE never waits a day on a lock the dump left (issue 45.3);
      // the catalog's table sizes as they are now (MySQL 8 caches them for a day), for the disk budget.
      await admin.query("SET SESSION sql_mode = REPLACE(@@SESSION.sql_mode, 'NO_BACKSLASH_ESCAPES', '')").catch(() => {});
      await admin.query(`SET SESSION lock_wait_timeout = ${LOCK_WAIT_S}`).catch(() => {});
      await admin.query('SET SESSION information_schema_stats_expiry = 0').catch(() => {});
      const [[version], [n0900]] = await Promise.all([cells(admin, 'SELECT VERSION()'), cells(admin, "SELECT COUNT(*) FROM information_schema.COLLATIONS WHERE COLLATION_NAME = 'utf8mb4_0900_ai_ci'")]);
      const full = version?.[0] ?? '';
      const product = /mariadb/i.test(full) ? 'MariaDB' : 'MySQL';
      const caps: TargetCaps = {
        has0900Collations: Number(n0900?.[0] ?? 0) > 0,
        // The sandbox line reaches the target, which drops it: there is no client to put in sandbox mode.
        clientSandbox: true,
        clientIsMysql: false,
      };
      // The host the server sees us from: the throwaway login is made for that host only.
      const [[me]] = await cells(admin, 'SELECT USER()');
      const host = connectionHost(me);
      const session: AdminSession = { rows: (sql) => cells(admin, sql), exec: (sql) => admin.query({ sql, timeout: CLEANUP_STATEMENT_MS }) };
      // What an earlier run, killed, left on this server (issue 45.4): found by name, judged by the note and its age.
      if (runs === 'server') await sweepMysqlLeftovers(session, opts.warn ?? (() => {}));
      const db = `backupctl_restore_${randomName()}`;
      // Its note says who made it (MariaDB 10.5+; MySQL has no database comment: made without).
      const make = (comment: string) => admin.query(`CREATE DATABASE ${q(db)}${comment}`);
      await make(` COMMENT ${lit(mysqlOwnerNote(host))}`)
        .catch((e: { errno?: number }) => (e?.errno === 1064 ? make('') : Promise.reject(e)))
        .catch((e) => {
          throw new EngineUnavailableError(`cannot create the scratch database ${db}: ${redact(errText(e), conn.secrets)}`);
        });
      database = db;
      // The login has the database's hex (the sweep knows it by name); the guardian drops both if backupctl is killed.
      const name = loginOf(db)!;
      const guardian = runs === 'server' ? startMysqlGuardian({ conn, database: db, login: name, hosts: [host], mysql2: mysql2Path() }) : null;
      guarded = guardian;
      const literalGrants = (await cells(admin, 'SELECT @@GLOBAL.partial_revokes').catch(() => [['0']]))[0]?.[0] === '1';
      const password = randomBytes(24).toString('base64url');
      const who = `${lit(name)}@${lit(host)}`;
      let made = false;
      try {
        await admin.query(`CREATE USER ${who} IDENTIFIED BY ${lit(password)}`);
        made = true;
        await admin.query(`GRANT ALL PRIVILEGES ON ${grantSchema(db, literalGrants)}.* TO ${who}`);
        throwaway = who;
      } catch {
        if (made) await admin.query(`DROP USER IF EXISTS ${who}`).catch(() => {});
      }
      let login: MyConn;
      let rights: string;
      if (throwaway) {
        login = { ...conn, user: name, password, secrets: [...conn.secrets, password] };
        rights = `a throwaway login ${name} with ALL on ${db} only (no FILE, SUPER, PROCESS, CREATE USER, GRANT OPTION; no other schema)`;
      } else {
        // This user cannot create logins: it restores itself, only when its rights reach nothing but scratch schemas.
        const grants = (await cells(admin, 'SHOW GRANTS FOR CURRENT_USER()')).map((r) => r[0] ?? '');
        const beyond = grantsReachBeyondScratch(grants);
        if (beyond && !opts.trustIntoUser) {
          throw new RestoreError(
            `the --into user ${conn.user} cannot create a throwaway login, and its rights reach beyond the scratch databases (${beyond}): ` +
              'give a user that may CREATE USER and GRANT (restore-test then restores as a throwaway login confined to the scratch database), ' +
              'or one whose grants reach only `backupctl\\_restore\\_%`.*, or --trust-into-user to restore with its rights anyway',
          );
        }
        login = conn;
        rights = beyond ? `the --into user ${conn.user} itself, trusted (--trust-into-user) with rights beyond the scratch database: ${beyond}` : `the --into user ${conn.user} itself (its grants reach only backupctl_restore_* schemas)`;
      }
      const info: EngineInfo = { name: 'mysql', runs, product, version: /^(\d+\.\d+\.\d+)/.exec(full)?.[1] ?? null, rights };
      const target = new MysqlTarget(admin, conn, login, throwaway, throwaway ? name : null, db, info, caps, onClose, opts.signal);
      target.guardian = guarded;
      target.session = await connect(login, db);
      try {
        await target.watchDisk(opts);
      } catch (e) {
        target.session.destroy();
        throw e;
      }
      return target;
    } catch (e) {
      if (throwaway) await admin.query(`DROP USER IF EXISTS ${throwaway}`).catch(() => {});
      if (database) await admin.query(`DROP DATABASE IF EXISTS ${q(database)}`).catch(() => {});
      guarded?.kill('SIGKILL');
      admin.destroy();
      throw e;
    }
  }

  get dead(): boolean {
    return this.error !== null || this.closed;
  }

  /** One statement to the server; the one before it must have succeeded first (as the client without --force). */
  async statement(text: string, line: number, _endLine: number, head: string): Promise<void> {
    if (this.inflight) await this.inflight;
    if (this.dead) return;
    const d = this.delimiter;
    const body = head.endsWith(d) ? head.slice(0, head.length - d.length) : head;
    if (!/\S/.test(body)) return;
    const sql = text.endsWith(d) ? text.slice(0, text.length - d.length) : text;
    const session = this.session!;
    this.sent += sql.length;
    let settled = false;
    this.inflight = new Promise<void>((resolve) => {
      const done = () => {
        settled = true;
        this.stopCurrent = null;
        resolve();
      };
      this.stopCurrent = () => {
        if (!settled && !this.error) this.error = new RestoreError('the restore was stopped while this statement ran', line, head.slice(0, 200));
        done();
      };
      session.query(sql).then(done, (e) => {
        if (!settled && !this.error) this.error = new RestoreError(redact(errText(e), this.login.secrets), line, head.slice(0, 200));
        done();
      });
    });
  }

  async blank(): Promise<void> {}

  /** Client text: DELIMITER (the reader splits by it; the target strips it), mariadb-dump's sandbox line (nothing to do), comments. */
  async raw(text: string): Promise<void> {
    const m = /(?:^|\n)[ \t]*delimiter[ \t]+(\S+)/i.exec(text);
    if (m) this.delimiter = m[1]!;
  }

  async copyStart(): Promise<void> {
    throw new RestoreError('COPY ... FROM stdin is PostgreSQL, not MySQL');
  }

  async copyData(): Promise<void> {}

  async copyEnd(): Promise<void> {}

  async finish(): Promise<void> {
    if (this.inflight) await this.inflight;
    // The last measure: a restore quicker than the poll is judged too.
    if (!this.error && this.disk) {
      const over = await this.disk.check();
      if (over) await this.overDisk(over);
    }
    if (this.error) throw this.error;
  }

  /** A fresh connection as the dump's login (its session state, USE and SET, stay behind): the checks run with the dump's rights, never the administrator's. */
  private async checker(): Promise<Connection> {
    return connect(this.login, this.database);
  }

  async countRows(tables: string[]): Promise<(number | null)[]> {
    if (tables.length === 0) return [];
    const c = await this.checker();
    try {
      const out: (number | null)[] = [];
      for (const t of tables) {
        try {
          // Counted only while it is a base table still: a view of the same name made in its place (the rows
          // dropped, constant rows shown) is no count, never the rows the dump held.
          const [[row]] = [await cells(c, `SELECT CASE WHEN (SELECT TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ${lit(t)}) = 'BASE TABLE' THEN (SELECT COUNT(*) FROM ${q(t)}) END`)];
          out.push(row && row[0] !== null ? Number(row[0]) : null);
        } catch {
          out.push(null);
        }
      }
      return out;
    } finally {
      c.destroy();
    }
  }

  async countTables(): Promise<number> {
    const [[row]] = [await cells(this.admin, `SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ${lit(this.database)} AND TABLE_TYPE = 'BASE TABLE'`)];
    return Number(row?.[0] ?? 0);
  }

  async firstCell(sql: string): Promise<string | null> {
    const c = await this.checker();
    try {
      const rows = await cells(c, sql.trim().replace(/;\s*$/, ''));
      const cell = rows[0]?.[0];
      return cell === undefined ? null : cell;
    } catch (e) {
      throw new Error(redact(errText(e), this.login.secrets));
    } finally {
      c.destroy();
    }
  }

  close(keep: boolean): Promise<string[]> {
    this.closing ??= this.doClose(keep);
    return this.closing;
  }

  private async doClose(keep: boolean): Promise<string[]> {
    this.closed = true;
    this.disk?.stop();
    const warnings: string[] = [];
    const say = (what: string) => (e: unknown) => warnings.push(`${what}: ${redact(errText(e), this.conn.secrets)}`);
    // A statement still running (an abort): end it on the server before the schema is dropped.
    const id = this.session?.threadId;
    if (id && this.inflight) await this.adminQuery(`KILL ${Number(id)}`).catch(() => {});
    this.session?.destroy();
    this.session = null;
    this.stopCurrent?.();
    if (this.info.runs !== 'local') {
      // The login first: no new session, and no event of the dump runs as it any more (issue 45.3).
      if (this.throwaway) await this.adminQuery(`DROP USER IF EXISTS ${this.throwaway}`).catch(say(`could not drop the throwaway login ${this.throwaway}`));
      await this.killThreads(id);
      if (!keep) await this.dropScratch(id, say);
      // Kept on purpose: its note goes, so that no later run takes it for a leftover (mysql-guardian.ts).
      else await this.adminQuery(`ALTER DATABASE ${q(this.database)} COMMENT 'kept by backupctl restore-test --keep'`).catch(() => {});
    }
    this.admin.destroy();
    // Cleaned up (or kept on purpose, --keep): the guardian must not act once this process exits.
    this.guardian?.kill('SIGKILL');
    await this.onClose();
    return warnings;
  }

  /**
   * Every thread of the throwaway login (its sessions, and the event threads that run as it) and every
   * thread in the scratch database, but the administrator's own: they would hold the locks DROP DATABASE waits on.
   */
  private async killThreads(sessionId: number | undefined): Promise<void> {
    const who = this.throwawayName ? `USER = ${lit(this.throwawayName)} OR ` : '';
    let ids: (string | null)[][] = [];
    try {
      ids = await cells(this.admin, `SELECT ID FROM information_schema.PROCESSLIST WHERE (${who}DB = ${lit(this.database)}) AND ID <> CONNECTION_ID()`);
    } catch {
      /* no answer: the drop's short lock wait still bounds the cleanup */
    }
    const all = new Set(ids.map((r) => Number(r[0])).filter((n) => Number.isInteger(n) && n > 0));
    if (sessionId) all.add(Number(sessionId));
    for (const t of all) await this.adminQuery(`KILL ${t}`).catch(() => {});
  }

  /** Events first (one firing every second takes the lock again), then the database; a lock holder that comes back is killed again, a few rounds at most. */
  private async dropScratch(sessionId: number | undefined, say: (what: string) => (e: unknown) => void): Promise<void> {
    let last: unknown = null;
    for (let round = 0; round < DROP_ROUNDS; round++) {
      try {
        const events = await cells(this.admin, `SELECT EVENT_NAME FROM information_schema.EVENTS WHERE EVENT_SCHEMA = ${lit(this.database)}`).catch(() => []);
        for (const [name] of events) if (name !== null) await this.adminQuery(`DROP EVENT IF EXISTS ${q(this.database)}.${q(name)}`).catch(() => {});
        await this.killThreads(sessionId);
        await this.adminQuery(`DROP DATABASE IF EXISTS ${q(this.database)}`);
        return;
      } catch (e) {
        last = e;
        // Ctrl-C, SIGTERM or --timeout during the cleanup: one round, then say what is left.
        if (this.signal?.aborted) break;
        await this.killThreads(sessionId);
      }
    }
    say(`could not drop the scratch database ${this.database}`)(last);
  }

  async abort(): Promise<void> {
    await this.close(false);
  }
}

/**
 * MySQL/MariaDB (issue 28 §10): --into a server, or an ephemeral local
 * MariaDB (mariadb-local.ts), over the wire protocol (mysql2). No mariadb or
 * mysql client is needed or used, whatever version is installed.
 */
export const mysqlEngine: SqlEngine = {
  dialect: 'mysql',
  product: 'MySQL/MariaDB',
  kinds: ['mysql'],
  intoDialect: 'mysql',

  async unavailable(mode: Placement, _kind: ContentKind, o: EngineOptions): Promise<string | null> {
    if (mode === 'embedded') return 'PGlite restores PostgreSQL dumps only';
    const driver = await findMyClient();
    if (!driver) return 'the mysql2 driver is not installed (npm install -g mysql2 beside a global backupctl)';
    if (mode === 'server') return null;
    if (!findMyServer(o.env.PATH)) return 'no local MariaDB/MySQL (mariadb-install-db and mariadbd, or mysqld) binaries';
    return serverAccount(MARIADB_ACCOUNT, o.runAs).problem ?? null;
  },

  hints(): string[] {
    return [
      'install the server package (apt-get install mariadb-server): restore-test starts a private server for each test',
      'or give a scratch server: --into mysql://user:password@host:3306/ (its password is safer in BACKUPCTL_RESTORE_URL or --into-file FILE: ps shows argv)',
      'or add PGlite (npm install -g @electric-sql/pglite): it restores PostgreSQL dumps only',
    ];
  },

  async open(plan: EnginePlan, o: EngineOptions, x: OpenContext): Promise<SqlTarget> {
    const driver = (await findMyClient())!;
    if (plan.placement === 'server') return MysqlTarget.open(driver, myConnFromUrl(plan.into!), 'server', async () => {}, { trustIntoUser: o.trustIntoUser, env: o.env, signal: x.signal, warn: x.warn });
    const started = await startLocalMysql(o.runAs, x.signal, o.env.PATH);
    try {
      if (x.signal.aborted) throw new RestoreError('aborted');
      // Root of our own server may create the throwaway login: the dump never runs as root.
      return await MysqlTarget.open(driver, { socketPath: started.socketPath, user: 'root', secrets: [] }, 'local', () => started.server.stop(), {
        env: o.env,
        dataDir: path.join(started.server.dir, 'data'),
        serverDir: started.server.dir,
        signal: x.signal,
      });
    } catch (e) {
      await started.server.stop();
      throw e;
    }
  },

  converter(): PipedClient | null {
    return null;
  },
};
