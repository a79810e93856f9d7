// PostgreSQL through psql: a scratch database on the user's server (--into
// postgres://...) or on an ephemeral local server (initdb + postgres in a
// private folder, Unix socket only). The dump streams into
// `psql -X -q -v ON_ERROR_STOP=1 -f -` with its line numbers kept, so psql's
// "psql:<stdin>:N:" is a line of the dump.
import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { EngineInfo, Placement } from '../types.js';
import type { ContentKind } from '../../pipeline/kinds.js';
import { PipedClient } from './client.js';
import type { EngineOptions, EnginePlan, OpenContext, SqlEngine } from './engine.js';
import type { ChildProcess } from 'node:child_process';
import { folderBytes, maxDiskFromEnv, watchDisk, type DiskOver } from '../disk-budget.js';
import { leftoverReason, ownerNote, startIntoGuardian } from './pg-guardian.js';
import { findPgServer, pgServerAccount, startLocalPostgres } from './pg-local.js';
import { countTable, dropSession, firstError, lit, psqlQueries, q, restrictLine, rollbackPrepared, type PgBins, type PgConn } from './pg-session.js';
import { clientEnv, findBinary, isExecutable, postgresBinDirs, randomName, redact, run } from '../servers/proc.js';
import { loadPGlite, PGLITE_PACKAGE, PGliteTarget } from './pglite.js';
import { EngineUnavailableError, RestoreError, type SqlTarget, type TargetCaps } from './target.js';
import type { ParsedUrl } from '../servers/url.js';

export function findPgClients(pathVar?: string): PgBins | null {
  const dirs = postgresBinDirs();
  const psql = findBinary('psql', dirs, pathVar);
  if (!psql) return null;
  return { psql: unwrapped(psql, 'psql', dirs), pgRestore: ((b) => b && unwrapped(b, 'pg_restore', dirs))(findBinary('pg_restore', dirs, pathVar)) };
}


/** The note of a database and login kept with --keep: not backupctl's owner note, so no later sweep takes them. */
const KEPT_NOTE = 'kept by backupctl restore-test --keep';
/**
 * Debian's /usr/bin/psql and pg_restore are links to pg_wrapper, a Perl script that picks
 * a version and runs /usr/lib/postgresql/<major>/bin/<name>: 60-90 ms of Perl start-up
 * before each of the six or so psql sessions of one restore. The newest installed
 * binary is what the wrapper runs for a server it has no cluster entry for, and a newer
 * psql speaks to every older server; running it directly also makes the binary whose
 * version was checked (\restrict) the binary that runs, whatever PGCLUSTER or
 * ~/.postgresqlrc would make the wrapper pick later.
 */
function unwrapped(file: string, name: string, dirs: string[]): string {
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return file;
  }
  if (path.basename(real) !== 'pg_wrapper') return file;
  for (const dir of dirs) {
    const direct = path.join(dir, name);
    if (isExecutable(direct)) return direct;
  }
  return file;
}

const restrictCache = new Map<string, Promise<{ version: string | null; ok: boolean }>>();

/**
 * Whether this psql has \restrict (psql refuses every meta-command until
 * \unrestrict with the same key): 13.22, 14.19, 15.14, 16.10, 17.6 and later
 * (CVE-2025-8714). Without it no dump byte is given to psql.
 */
export function psqlRestricts(psql: string): Promise<{ version: string | null; ok: boolean }> {
  let p = restrictCache.get(psql);
  if (!p) {
    p = run(psql, ['--version'], { timeoutMs: 10_000 })
      .then((r) => {
        const m = /(\d+)(?:\.(\d+))?/.exec(r.stdout.replace(/^[^\d]*/, ''));
        if (!m) return { version: null, ok: false };
        const major = Number(m[1]);
        const minor = Number(m[2] ?? 0);
        const first: Record<number, number> = { 13: 22, 14: 19, 15: 14, 16: 10, 17: 6 };
        const ok = major >= 18 || (first[major] !== undefined && minor >= first[major]!);
        return { version: `${major}.${minor}`, ok };
      })
      .catch(() => ({ version: null, ok: false }));
    restrictCache.set(psql, p);
  }
  return p;
}

export function pgConnFromUrl(u: ParsedUrl): PgConn {
  // The client's environment (named so: help-topics' scan takes `env.X` for a variable backupctl reads).
  // The administrator's sessions are never read-only, whatever a dump did to the role's own settings.
  const vars: Record<string, string> = { PGOPTIONS: '-c default_transaction_read_only=off' };
  if (u.socketDir) vars.PGHOST = u.socketDir;
  else if (u.host) vars.PGHOST = u.host;
  if (u.port) vars.PGPORT = String(u.port);
  if (u.user) vars.PGUSER = u.user;
  if (u.password) vars.PGPASSWORD = u.password;
  for (const [k, v] of Object.entries(u.params)) {
    const name = { sslmode: 'PGSSLMODE', sslrootcert: 'PGSSLROOTCERT', sslcert: 'PGSSLCERT', sslkey: 'PGSSLKEY', connect_timeout: 'PGCONNECT_TIMEOUT', application_name: 'PGAPPNAME' }[k];
    if (name) vars[name] = v;
  }
  vars.PGCONNECT_TIMEOUT ??= '10';
  return { env: vars, adminDb: u.database || 'postgres', secrets: u.password ? [u.password] : [] };
}

/**
 * Extensions a non-superuser cannot create that the administrator connection
 * creates in the scratch database before the dump runs: none of them reads or
 * writes server files, runs programs or reaches another server. Never dblink,
 * postgres_fdw, file_fdw, adminpack, an untrusted language (plperlu,
 * plpython3u, pltclu), nor anything not named here.
 */
export const EXTENSION_ALLOW_LIST: ReadonlySet<string> = new Set([
  'postgis',
  'postgis_raster',
  'postgis_topology',
  'postgis_sfcgal',
  'address_standardizer',
  'address_standardizer_data_us',
  'pgrouting',
  'h3',
  'h3_postgis',
  'vector',
  'btree_gin',
  'btree_gist',
  'citext',
  'cube',
  'earthdistance',
  'fuzzystrmatch',
  'hstore',
  'intarray',
  'isn',
  'lo',
  'ltree',
  'pg_trgm',
  'pgcrypto',
  'seg',
  'tablefunc',
  'tcn',
  'tsm_system_rows',
  'tsm_system_time',
  'unaccent',
  'uuid-ossp',
  'bloom',
  'intagg',
  'dict_int',
]);

/** The extensions a dump creates, from its first bytes (pg_dump writes them before any table). */
export function extensionsOf(head: string): string[] {
  const out: string[] = [];
  for (const m of head.matchAll(/^CREATE\s+EXTENSION\s+(?:IF\s+NOT\s+EXISTS\s+)?("(?:[^"]|"")+"|[A-Za-z_][\w$-]*)/gim)) {
    const name = m[1]!.startsWith('"') ? m[1]!.slice(1, -1).replace(/""/g, '"') : m[1]!.toLowerCase();
    if (!out.includes(name)) out.push(name);
  }
  return out;
}

/** The read-only questions open() asks the administrator connection first (see PsqlTarget.open for the answers' use). */
const PROBE_QUERIES = [
  'SHOW server_version',
  'SHOW server_version_num',
  'SELECT name FROM pg_settings',
  'SELECT name FROM pg_available_extensions',
  // Who the --into user is, and what it reaches.
  `SELECT r.rolname, r.rolsuper, r.rolcreaterole, r.rolcreatedb, r.rolreplication, r.rolbypassrls,
     coalesce((SELECT string_agg(b.rolname, ',') FROM pg_auth_members m JOIN pg_roles b ON b.oid = m.roleid WHERE m.member = r.oid), ''),
     coalesce((SELECT string_agg(d.datname, ',') FROM pg_database d WHERE d.datdba = r.oid AND d.datname NOT LIKE 'backupctl\_restore\_%'), '')
   FROM pg_roles r WHERE r.rolname = current_user`,
  `SELECT coalesce((SELECT string_agg(setdatabase::text || ':' || array_to_string(setconfig, ','), ';' ORDER BY setdatabase) FROM pg_db_role_setting WHERE setrole = (SELECT oid FROM pg_roles WHERE rolname = current_user)), '')`,
  "SELECT coalesce(string_agg(name, ','), '') FROM pg_available_extension_versions WHERE trusted",
  // Scratch databases and logins of earlier runs, with the note each carries (pg-guardian.ts: leftoverReason).
  `SELECT 'd', d.datname, coalesce(shobj_description(d.oid, 'pg_database'), '') FROM pg_database d WHERE d.datname LIKE 'backupctl\\_restore\\_%'
   UNION ALL SELECT 'r', r.rolname, coalesce(shobj_description(r.oid, 'pg_authid'), '') FROM pg_roles r WHERE r.rolname LIKE 'backupctl\\_r\\_%'`,
];

type Probe = Awaited<ReturnType<typeof psqlQueries>>;

function probeServer(psql: string, admin: PgConn, signal?: AbortSignal): Promise<Probe> {
  return psqlQueries(psql, admin, admin.adminDb, PROBE_QUERIES, signal);
}

/** Probes started early by prewarm(), by client and connection; each is taken once (null: open() asks again). */
const probes = new Map<string, Promise<Probe | null>>();
const probeKey = (psql: string, admin: PgConn) => JSON.stringify([psql, admin.adminDb, Object.entries(admin.env).sort()]);

function takeProbe(psql: string, admin: PgConn): Promise<Probe | null> | undefined {
  const key = probeKey(psql, admin);
  const p = probes.get(key);
  probes.delete(key);
  return p;
}

/** Who the dump's session is, and what it may do: the result says it (engine.rights). */
interface Session {
  conn: PgConn;
  /** A throwaway login made for this test (dropped afterwards), or null: the --into user itself. */
  login: string | null;
  rights: string;
}

/** The user tables of the scratch database (restore-test refuses an empty restore). */
const COUNT_TABLES =
  "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'";

export class PsqlTarget implements SqlTarget {
  readonly dialect = 'postgres' as const;
  private client: PipedClient | null = null;
  /** psql names the line where a statement ENDS; the dump's line where it starts, for the last statements sent. */
  private ends = new Map<number, { line: number; head: string; copy: boolean }>();
  private copyLine = 0;
  private copyHead = '';
  private closing: Promise<string[]> | null = null;
  /** What close() could not remove from the --into server (a scratch database, a login): the test is not passed then. */
  leftBehind: string | null = null;
  private guardian: ChildProcess | null = null;
  /** The disk budget's watch (BACKUPCTL_RESTORE_MAX_DISK), and what it found over it. */
  private disk: { stop(): void; check(): Promise<DiskOver | null> } | null = null;
  private diskOver: RestoreError | null = null;
  /** Characters of the dump sent to psql: what the data on disk is judged against. */
  private sent = 0;

  private constructor(
    private readonly bins: PgBins,
    /** The administrator connection: creates and drops the login and the scratch database, never runs a byte of the dump. */
    private readonly admin: PgConn,
    /** The dump's session: the throwaway login (or the checked --into user), in the scratch database. */
    private readonly session: Session,
    readonly database: string,
    readonly info: EngineInfo,
    readonly caps: TargetCaps,
    private readonly serverNum: number,
    /** The role's own settings before the dump (the --into user itself: a dump may ALTER ROLE its own settings). */
    private readonly settingsBefore: string | null,
    private readonly onClose: (now: boolean) => Promise<void>,
  ) {}

  /**
   * The scratch database and the session the dump runs in (issue 28 §1): an
   * administrator that may create roles makes a throwaway login (random name
   * and password; no superuser, CREATEDB, CREATEROLE, replication or
   * BYPASSRLS; member of nothing) that owns the new database, and the dump
   * connects AS that login. An --into user that may not create roles is used
   * itself only when its rights reach nothing but what it creates (see
   * docs/security.md), or with --trust-into-user.
   */
  static async open(
    bins: PgBins,
    admin: PgConn,
    runs: Placement,
    onClose: (now: boolean) => Promise<void>,
    x: OpenContext,
    opts: { trustIntoUser?: boolean; env?: NodeJS.ProcessEnv; serverDir?: string } = {},
  ): Promise<PsqlTarget> {
    const maxDisk = maxDiskFromEnv(opts.env);
    const database = `backupctl_restore_${randomName()}`;
    // Asked while the job was looked up (prewarm), or now.
    const probe = (await takeProbe(bins.psql, admin)) ?? (await probeServer(bins.psql, admin, x.signal));
    if (probe.rows[0] === null) throw new EngineUnavailableError(`cannot connect to PostgreSQL: ${redact(firstError(probe.stderr), admin.secrets)}`);
    if (probe.rows[4] === null) throw new EngineUnavailableError(`cannot create the scratch database: ${redact(firstError(probe.stderr), admin.secrets)}`);
    const version = probe.rows[0]![0]?.[0]?.split(' ')[0] ?? null;
    const serverNum = Number(probe.rows[1]?.[0]?.[0] ?? 0);
    const caps: TargetCaps = {
      settings: new Set((probe.rows[2] ?? []).map((r) => r[0]!.toLowerCase())),
      extensions: new Set((probe.rows[3] ?? []).map((r) => r[0]!)),
    };
    const [user, sup, createrole, createdb, replication, bypassrls, memberOf, owns] = probe.rows[4]![0] ?? [];
    const t = (v: string | undefined) => v === 't';
    const trusted = new Set((probe.rows[6]?.[0]?.[0] ?? '').split(',').filter(Boolean));
    await sweepLeftovers(bins, admin, probe.rows[7] ?? [], serverNum, x);
    const note = ownerNote();
    let session: Session;
    let settingsBefore: string | null = null;
    if (t(sup) || t(createrole)) {
      // A throwaway login that owns the scratch database and nothing else.
      const login = `backupctl_r_${randomName()}`;
      const password = randomBytes(24).toString('base64url');
      const made = await psqlQueries(
        bins.psql,
        admin,
        admin.adminDb,
        [
          `CREATE ROLE ${q(login)} LOGIN PASSWORD ${lit(password)} NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS CONNECTION LIMIT 8`,
          // A CREATEROLE administrator that is not a superuser gives a database to a role it is a member of.
          ...(t(sup) ? [] : [`GRANT ${q(login)} TO CURRENT_USER`]),
          `COMMENT ON ROLE ${q(login)} IS ${lit(note)}`,
          `CREATE DATABASE ${q(database)} OWNER ${q(login)}`,
          `COMMENT ON DATABASE ${q(database)} IS ${lit(note)}`,
          `REVOKE ALL ON DATABASE ${q(database)} FROM PUBLIC`,
          `GRANT CONNECT, TEMPORARY ON DATABASE ${q(database)} TO ${q(login)}`,
          // Temporary files (a sort, a hash of a huge query) count against the budget too (a superuser's setting).
          ...(t(sup) ? [`ALTER ROLE ${q(login)} SET temp_file_limit = ${lit(`${Math.max(1, Math.floor(maxDisk / 1024))}kB`)}`] : []),
        ],
        // No signal: this psql runs to its end even after Ctrl-C (a few hundred ms); the caller sees the abort once
        // open() returns and drops both. Killing it did not stop the server: its CREATE DATABASE went on and
        // committed after our DROP DATABASE IF EXISTS had found nothing, and the database and its login stayed
        // on the --into server (3 of 18 Ctrl-C in a sweep of delays).
        undefined,
        true,
      );
      if (made.code !== 0 || made.rows.some((r) => r === null)) {
        await dropSession(bins, admin, database, login, serverNum);
        throw new RestoreError(`cannot create the scratch database ${database} and its login: ${redact(firstError(made.stderr), [...admin.secrets, password])}`);
      }
      const conn: PgConn = { env: { ...admin.env, PGUSER: login, PGPASSWORD: password, PGPASSFILE: '/dev/null' }, adminDb: database, secrets: [...admin.secrets, password] };
      session = { conn, login, rights: `throwaway login ${login}: no superuser, no CREATEROLE/CREATEDB, member of no role, owns only ${database}; dropped afterwards` };
    } else {
      const problems: string[] = [];
      if (!t(createdb)) problems.push('it may not create databases (CREATEDB)');
      const beyond: string[] = [];
      if (t(replication)) beyond.push('REPLICATION');
      if (t(bypassrls)) beyond.push('BYPASSRLS');
      if (memberOf) beyond.push(`member of ${memberOf}`);
      if (owns) beyond.push(`owns ${owns}`);
      if (problems.length) throw new RestoreError(`--into user ${user} cannot restore: ${problems.join('; ')}; give a user with CREATEROLE (backupctl then makes a throwaway login) or CREATEDB`);
      if (beyond.length && !opts.trustIntoUser) {
        throw new RestoreError(
          `--into user ${user} reaches more than what it creates (${beyond.join(', ')}): a tampered dump would run with those rights. Give a user with CREATEROLE (backupctl makes a throwaway login for the dump), a user that owns nothing, or --trust-into-user`,
        );
      }
      const created = await psqlQueries(bins.psql, admin, admin.adminDb, [`CREATE DATABASE ${q(database)}`, `COMMENT ON DATABASE ${q(database)} IS ${lit(note)}`], undefined, true); // no signal: as for the throwaway login above
      if (created.rows[0] === null || created.code !== 0) throw new RestoreError(`cannot create the scratch database ${database}: ${redact(firstError(created.stderr), admin.secrets)}`);
      settingsBefore = probe.rows[5]?.[0]?.[0] ?? '';
      session = {
        conn: { ...admin, env: { ...admin.env }, adminDb: database },
        login: null,
        rights: beyond.length ? `the --into user ${user} (--trust-into-user: ${beyond.join(', ')})` : `the --into user ${user}: no superuser, CREATEROLE, REPLICATION, BYPASSRLS or role membership, owns no other database (checked)`,
      };
    }
    const target = new PsqlTarget(bins, admin, session, database, { name: 'postgres', runs, product: 'PostgreSQL', version, rights: session.rights }, caps, serverNum, settingsBefore, onClose);
    // Extensions the dump needs that its login may not create: the administrator makes the allow-listed ones first.
    try {
      if (session.login && t(sup)) {
        const wanted = extensionsOf(x.head).filter((e) => caps.extensions!.has(e) && !trusted.has(e));
        const allowed = wanted.filter((e) => EXTENSION_ALLOW_LIST.has(e));
        for (const e of wanted.filter((e) => !EXTENSION_ALLOW_LIST.has(e))) x.warn(`extension-refused:${e}`, `the dump creates extension ${e}, which reaches files, programs or other servers: not created for it (its CREATE EXTENSION fails)`);
        if (allowed.length) {
          const r = await psqlQueries(bins.psql, admin, database, allowed.map((e) => `CREATE EXTENSION IF NOT EXISTS ${q(e)} WITH SCHEMA public`), x.signal);
          allowed.forEach((e, i) => {
            if (r.rows[i] !== null) x.warn(`extension:${e}`, `created extension ${e} in the scratch database as the administrator before the dump (allow-listed: it touches no files, programs or other servers)`);
          });
        }
      }
      target.watchDisk(maxDisk, opts.serverDir);
      // The dump's session starts now: psql logs in while the first bytes are read (one session fewer than a
      // separate "can the login log in?" query); a login pg_hba.conf refuses is said by finish().
      target.feed();
    } catch (e) {
      await target.close(false, true).catch(() => {});
      throw e;
    }
    return target;
  }

  /**
   * BACKUPCTL_RESTORE_MAX_DISK while the dump runs: an ephemeral server's folder (and its file system's free-space
   * floor), or the scratch database's size on an --into server. Over it, the dump's psql is stopped: failed when
   * the dump made its data itself (many times its text), else not-tested (src/restore/disk-budget.ts).
   */
  private watchDisk(max: number, serverDir?: string): void {
    const measure = serverDir
      ? () => folderBytes(serverDir)
      : async () => {
          const r = await psqlQueries(this.bins.psql, this.admin, this.admin.adminDb, [`SELECT pg_database_size(${lit(this.database)})`]);
          const v = r.rows[0]?.[0]?.[0];
          return v === undefined ? null : Number(v);
        };
    const where = serverDir ? `the ephemeral server's folder ${serverDir}` : `the scratch database ${this.database}`;
    this.disk = watchDisk({
      measure,
      max,
      where,
      dumpBytes: () => this.sent,
      floorDir: serverDir,
      onOver: (over) => {
        if (this.diskOver || this.closing) return;
        this.diskOver = over.hostile ? new RestoreError(over.message) : new EngineUnavailableError(over.message);
        void this.client?.kill();
      },
    });
  }

  private feed(): PipedClient {
    if (!this.client) {
      this.client = new PipedClient(this.bins.psql, ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', this.database, '-f', '-'], {
        env: clientEnv({ ...this.session.conn.env, PGDATABASE: this.database, PGOPTIONS: '-c client_min_messages=warning' }),
      });
      // Our own first line: psql refuses every client command from here on, the dump's \unrestrict included.
      void this.client.write(restrictLine());
      // backupctl killed (SIGKILL) while the dump runs: the guardian kills this psql and drops what the test made.
      if (this.info.runs === 'server' && this.client.child.pid !== undefined) {
        const login = this.session.login;
        // The throwaway login's password, from the session's own connection settings (not the process environment).
        const { PGPASSWORD: sessionPassword } = this.session.conn.env;
        this.guardian = startIntoGuardian({ psql: this.bins.psql, env: this.admin.env, adminDb: this.admin.adminDb, database: this.database, login, loginPassword: login ? (sessionPassword ?? null) : null, client: this.client.child.pid });
      }
    }
    return this.client;
  }

  get dead(): boolean {
    return this.client?.dead ?? false;
  }

  private remember(endLine: number, v: { line: number; head: string; copy: boolean }): void {
    this.ends.set(endLine, v);
    if (this.ends.size > 20_000) {
      const first = this.ends.keys().next().value as number;
      this.ends.delete(first);
    }
  }

  async statement(text: string, line: number, endLine: number, head: string): Promise<void> {
    this.sent += text.length;
    this.remember(endLine, { line, head: head.slice(0, 200), copy: false });
    await this.feed().write(text);
  }

  async blank(lines: number): Promise<void> {
    if (lines > 0) await this.feed().write('\n'.repeat(lines));
  }

  async raw(text: string): Promise<void> {
    await this.feed().write(text);
  }

  async copyStart(head: string, line: number): Promise<void> {
    this.copyLine = line;
    this.copyHead = head.slice(0, 200);
  }

  async copyData(data: string | Buffer): Promise<void> {
    this.sent += data.length;
    if (typeof data === 'string') await this.feed().write(data);
    else await this.feed().writeBuffer(data);
  }

  async copyEnd(text: string, line: number): Promise<void> {
    this.remember(line, { line: this.copyLine, head: this.copyHead, copy: true });
    await this.feed().write(text);
  }

  async finish(): Promise<void> {
    const r = await this.feed().end();
    if (!this.diskOver && this.disk) {
      // Once more at the end: a dump may have made its data between two measures.
      const over = await this.disk.check();
      if (over) this.diskOver = over.hostile ? new RestoreError(over.message) : new EngineUnavailableError(over.message);
    }
    this.disk?.stop();
    if (this.diskOver) throw this.diskOver;
    const secrets = this.session.conn.secrets;
    if (r.code === 0) return this.noPrepared();
    if (/^psql: error: connection to server\b/m.test(r.stderr)) {
      throw new RestoreError(`the dump's login cannot connect to ${this.database}: ${redact(firstError(r.stderr), secrets)}${this.session.login ? ' (pg_hba.conf must accept password authentication for it where --into connects)' : ''}`);
    }
    const m = /psql:<stdin>:(\d+): (?:ERROR|FATAL):\s+([^\n]*)(?:\n(?:DETAIL|HINT|LINE \d+|CONTEXT):[^\n]*)*/.exec(r.stderr);
    if (!m) {
      const meta = /psql:<stdin>:(\d+): error: (backslash commands are restricted[^\n]*)/.exec(r.stderr);
      if (meta) throw new RestoreError(`psql refused a client command (${meta[2]!.trim()}): restore-test never runs a dump's client commands`, Number(meta[1]) - 1);
      throw new RestoreError(redact(firstError(r.stderr) || `psql exited with ${r.code ?? r.signal}`, secrets));
    }
    // Line 1 of psql's input is our \restrict: the dump's line is one less.
    const at = Number(m[1]) - 1;
    const known = this.ends.get(at);
    let line = known?.line ?? at;
    const copyAt = /CONTEXT:\s+COPY [^,]+, line (\d+)/.exec(m[0]);
    if (known?.copy && copyAt) line = known.line + Number(copyAt[1]);
    throw new RestoreError(redact(m[2]!.trim(), secrets), line, known?.head);
  }

  /**
   * A dump that ends in PREPARE TRANSACTION left a transaction that outlives its session (a server with
   * max_prepared_transactions > 0; the ephemeral one has none): its rows are not restored, it holds locks, and
   * DROP DATABASE fails while it exists. Rolled back at once, before any check; the test fails.
   */
  private async noPrepared(): Promise<void> {
    if (this.info.runs !== 'server') return;
    const { rolledBack, left } = await rollbackPrepared(this.bins.psql, [this.session.conn, { ...this.admin, adminDb: this.database }], this.database);
    const gids = [...rolledBack, ...left];
    if (!gids.length) return;
    const names = gids.slice(0, 3).map((g) => JSON.stringify(g.slice(0, 64))).join(', ') + (gids.length > 3 ? ', ...' : '');
    throw new RestoreError(`the dump left ${gids.length} prepared transaction${gids.length > 1 ? 's' : ''} (PREPARE TRANSACTION ${names}): ${left.length ? `${left.length} could not be rolled back` : 'rolled back'}; a dump commits what it restores`);
  }

  /**
   * A custom-format archive: pg_restore turns it into SQL (--no-owner
   * --no-privileges), read from its stdout like a plain dump. The caller
   * streams the archive into `input` and the SQL out of `output`.
   */
  static archiveConverter(bins: PgBins): PipedClient {
    if (!bins.pgRestore) throw new RestoreError('pg_restore is not installed: a custom-format dump (PGDMP) needs it (Debian package postgresql-client)');
    return new PipedClient(bins.pgRestore, ['--no-owner', '--no-privileges', '-f', '-'], { env: clientEnv({}), stdout: 'pipe' });
  }

  // The checks run as the dump's login, never the administrator: a "table" may be a view over a function the dump wrote.
  /** The number of user tables, counted by the session of countRows when one ran (one psql session for both checks). */
  private tablesCounted: Promise<number> | null = null;

  async countRows(tables: string[]): Promise<(number | null)[]> {
    if (tables.length === 0) return [];
    const run = psqlQueries(this.bins.psql, this.session.conn, this.database, [...tables.map(countTable), COUNT_TABLES]);
    this.tablesCounted ??= run.then((r) => Number(r.rows[tables.length]?.[0]?.[0] ?? 0));
    const r = await run;
    return r.rows.slice(0, tables.length).map((rows) => (rows && rows[0] && rows[0][0] !== '' ? Number(rows[0][0]) : null));
  }

  async countTables(): Promise<number> {
    if (this.tablesCounted) return this.tablesCounted;
    const r = await psqlQueries(this.bins.psql, this.session.conn, this.database, [COUNT_TABLES]);
    return Number(r.rows[0]?.[0]?.[0] ?? 0);
  }

  async firstCell(sql: string): Promise<string | null> {
    const r = await run(this.bins.psql, ['-X', '-q', '-A', '-t', '-F', '\x1f', '-v', 'ON_ERROR_STOP=1', '-P', 'null=\x1e', '-d', this.database, '-f', '-'], {
      env: clientEnv({ ...this.session.conn.env, PGDATABASE: this.database }),
      input: `${restrictLine()}${sql}\n`,
      timeoutMs: 300_000,
    });
    if (r.code !== 0) throw new Error(redact(firstError(r.stderr), this.session.conn.secrets));
    const line = r.stdout.split('\n')[0];
    if (line === undefined || r.stdout === '') return null;
    const cell = line.split('\x1f')[0]!;
    return cell === '\x1e' ? null : cell;
  }

  /** Drop the scratch database and the throwaway login (unless keep), stop the server. Once, however often called. */
  close(keep: boolean, now = false): Promise<string[]> {
    if (!this.closing) this.closing = this.doClose(keep, now);
    return this.closing;
  }

  private async doClose(keep: boolean, now: boolean): Promise<string[]> {
    const warnings: string[] = [];
    this.disk?.stop();
    await this.client?.kill();
    // An ephemeral local server goes away with its folder: no DROP needed there.
    if (this.info.runs !== 'local') {
      if (this.settingsBefore !== null) warnings.push(...(await this.restoreSettings()));
      if (!keep) {
        const why = await dropSession(this.bins, this.admin, this.database, this.session.login, this.serverNum, this.session.conn);
        if (why) {
          warnings.push(why);
          this.leftBehind = why;
        }
      } else if (this.session.login) {
        // --keep: the database stays with its owner, which may no longer log in.
        // Its notes replaced: a later run's sweep (by name, note and a gone backupctl) must never take what was kept on purpose.
        const r = await psqlQueries(this.bins.psql, this.admin, this.admin.adminDb, [
          `ALTER ROLE ${q(this.session.login)} NOLOGIN`,
          `COMMENT ON DATABASE ${q(this.database)} IS ${lit(KEPT_NOTE)}`,
          `COMMENT ON ROLE ${q(this.session.login)} IS ${lit(KEPT_NOTE)}`,
        ]).catch(() => null);
        warnings.push(r && r.rows[0] !== null ? `--keep: ${this.database} is kept, owned by ${this.session.login} (no longer a login): drop both when done` : `--keep: could not take the login of ${this.session.login}`);
      }
    }
    // Cleaned up (or kept on purpose): the guardian must not act once this process exits.
    this.guardian?.kill('SIGKILL');
    await this.onClose(now);
    return warnings;
  }

  /** The --into user's own settings, as before the dump (ALTER ROLE CURRENT_USER SET default_transaction_read_only ... would break every later test). */
  private async restoreSettings(): Promise<string[]> {
    const now = await psqlQueries(this.bins.psql, this.admin, this.admin.adminDb, [
      `SELECT coalesce((SELECT string_agg(setdatabase::text || ':' || array_to_string(setconfig, ','), ';' ORDER BY setdatabase) FROM pg_db_role_setting WHERE setrole = (SELECT oid FROM pg_roles WHERE rolname = current_user)), '')`,
    ]).catch(() => null);
    const after = now?.rows[0]?.[0]?.[0];
    if (after === undefined || after === this.settingsBefore) return [];
    const before = (this.settingsBefore ?? '').split(';').filter((s) => s.startsWith('0:')).map((s) => s.slice(2)).join(',');
    const sets = before
      .split(',')
      .filter(Boolean)
      .map((kv) => {
        const i = kv.indexOf('=');
        return `ALTER ROLE CURRENT_USER SET ${q(kv.slice(0, i))} = ${lit(kv.slice(i + 1))}`;
      });
    await psqlQueries(this.bins.psql, this.admin, this.admin.adminDb, ['ALTER ROLE CURRENT_USER RESET ALL', ...sets]).catch(() => null);
    return ['the dump changed the settings of the --into user (ALTER ROLE): put back as they were'];
  }

  async abort(): Promise<void> {
    await this.close(false, true);
  }
}

/**
 * Scratch databases and logins an earlier run left on the --into server (killed before it or its guardian could
 * drop them): those whose note says their run is gone, or that are older than a day, are dropped, each said.
 */
async function sweepLeftovers(bins: PgBins, admin: PgConn, found: string[][], serverNum: number, x: OpenContext): Promise<void> {
  const now = Date.now();
  const left = found.map(([type, name, note]) => ({ type, name: name!, why: leftoverReason(note ?? '', now) })).filter((l) => l.why !== null);
  // Databases first: a login is dropped once it owns nothing.
  for (const l of [...left.filter((l) => l.type === 'd'), ...left.filter((l) => l.type === 'r')]) {
    const what = l.type === 'd' ? 'scratch database' : 'throwaway login';
    const failed = l.type === 'd' ? await dropSession(bins, admin, l.name, null, serverNum) : await dropLogin(bins, admin, l.name);
    const text = failed ? `found the ${what} ${l.name} left by an earlier restore-test (${l.why}), and could not remove it: ${failed}` : `removed the ${what} ${l.name} left by an earlier restore-test on the --into server (${l.why})`;
    x.warn(`orphan:${l.name}`, text);
  }
}

async function dropLogin(bins: PgBins, admin: PgConn, login: string): Promise<string | null> {
  const r = await psqlQueries(bins.psql, admin, admin.adminDb, [`ALTER ROLE ${q(login)} NOLOGIN`, `DROP ROLE IF EXISTS ${q(login)}`]).catch(() => null);
  return r && r.rows[1] !== null ? null : redact(firstError(r?.stderr ?? 'psql failed'), admin.secrets);
}

/** PostgreSQL: --into a server, an ephemeral local server, or PGlite (plain dumps, and custom ones through pg_restore). */
export const postgresEngine: SqlEngine = {
  dialect: 'postgres',
  product: 'PostgreSQL',
  kinds: ['pg-plain', 'pg-custom'],
  intoDialect: 'postgres',

  async unavailable(mode: Placement, kind: ContentKind, o: EngineOptions): Promise<string | null> {
    const clients = findPgClients(o.env.PATH);
    if (mode === 'embedded') {
      if (kind === 'pg-custom' && !clients?.pgRestore) return 'a custom-format dump needs pg_restore, even for PGlite';
      return (await loadPGlite()) ? null : 'PGlite is not installed';
    }
    if (mode === 'local' && !(findPgServer(o.env.PATH) && clients)) return 'no local PostgreSQL (initdb, postgres, psql) binaries';
    if (!clients) return 'no psql client installed';
    if (kind === 'pg-custom' && !clients.pgRestore) return 'no pg_restore for a custom-format dump';
    const r = await psqlRestricts(clients.psql);
    if (!r.ok) return `psql ${r.version ?? '(unknown version)'} has no \\restrict (13.22, 14.19, 15.14, 16.10, 17.6 or later): a dump is never given to a psql that would run its client commands`;
    if (mode === 'local') return pgServerAccount(o.runAs).problem ?? null;
    return null;
  },

  hints(): string[] {
    return [
      'install the server package (apt-get install postgresql): restore-test starts a private server for each test',
      'or give a scratch server: --into postgres://user:password@host:5432/postgres (or BACKUPCTL_RESTORE_URL)',
      `or add PGlite, PostgreSQL in WebAssembly: npm install -g ${PGLITE_PACKAGE} (beside a global backupctl)`,
    ];
  },

  async open(plan: EnginePlan, o: EngineOptions, x: OpenContext): Promise<SqlTarget> {
    if (plan.placement === 'embedded') return PGliteTarget.open(x.signal);
    const bins = findPgClients(o.env.PATH)!;
    if (plan.placement === 'server') return PsqlTarget.open(bins, pgConnFromUrl(plan.into!), 'server', async () => {}, x, { trustIntoUser: o.trustIntoUser, env: o.env });
    const started = await startLocalPostgres(o.runAs, x.signal, o.env, maxDiskFromEnv(o.env));
    for (const line of started.orphans) x.warn(`orphan:${line}`, line);
    try {
      if (x.signal.aborted) throw new RestoreError('aborted');
      return await PsqlTarget.open(bins, started.conn, 'local', (now) => started.server.stop(now), x, { env: o.env, serverDir: started.server.dir });
    } catch (e) {
      await started.server.stop(true);
      throw e;
    }
  },

  converter(kind: ContentKind, o: EngineOptions): PipedClient | null {
    return kind === 'pg-custom' ? PsqlTarget.archiveConverter(findPgClients(o.env.PATH)!) : null;
  },

  prewarm(into: ParsedUrl, o: EngineOptions, signal: AbortSignal): void {
    const clients = findPgClients(o.env.PATH);
    if (!clients) return;
    // Only a psql with \restrict is ever run (the probe's script starts with it, as every session's does).
    const admin = pgConnFromUrl(into);
    const probe = psqlRestricts(clients.psql)
      .then((r) => (r.ok ? probeServer(clients.psql, admin, signal) : null))
      .then((p) => (signal.aborted ? null : p), () => null);
    probes.set(probeKey(clients.psql, admin), probe);
  },
};
