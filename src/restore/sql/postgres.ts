// PostgreSQL through psql: a scratch database on the user's server (--into
// postgres://...) or on an ephemeral local server (initdb + postgres in a
// private folder, Unix socket only). The dump streams into
// `psql -X -q -v ON_ERROR_STOP=1 -f -` with its line numbers kept, so psql's
// "psql:<stdin>:N:" is a line of the dump.
import { access, rm } from 'node:fs/promises';
import path from 'node:path';
import type { EngineInfo } from '../types.js';
import { PipedClient } from './client.js';
import { privateDir, serverAccount, serverEnv, startServer, tail, type EphemeralServer } from './ephemeral.js';
import { clientEnv, findBinary, isExecutable, postgresBinDirs, randomName, redact, run } from './proc.js';
import { EngineUnavailableError, RestoreError, type SqlTarget, type TargetCaps } from './target.js';
import type { ParsedUrl } from './url.js';

export interface PgConn {
  /** PGHOST, PGPORT, PGUSER, PGPASSWORD, PGSSLMODE...: the password only ever in the environment. */
  env: Record<string, string>;
  /** The database to connect to for CREATE/DROP DATABASE. */
  adminDb: string;
  secrets: string[];
}

export interface PgBins {
  psql: string;
  pgRestore: string | null;
}

export function findPgClients(): PgBins | null {
  const dirs = postgresBinDirs();
  const psql = findBinary('psql', dirs);
  if (!psql) return null;
  return { psql, pgRestore: findBinary('pg_restore', dirs) };
}

export function pgConnFromUrl(u: ParsedUrl): PgConn {
  // The client's environment (named so: help-topics' scan takes `env.X` for a variable backupctl reads).
  const vars: Record<string, string> = {};
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

function q(ident: string): string {
  return `"${ident.replace(/"/g, '""')}"`;
}

/** psql's answer to a few queries, in one session: each query's rows (fields split), null where it failed. */
async function psqlQueries(psql: string, conn: PgConn, db: string, queries: string[], signal?: AbortSignal): Promise<{ rows: (string[][] | null)[]; stderr: string; code: number | null }> {
  const script = queries.map((sql, i) => `\\echo @@bq${i}\n${sql.trim().replace(/;?\s*$/, ';')}\n`).join('') + '\\echo @@bqend\n';
  const r = await run(psql, ['-X', '-q', '-A', '-t', '-F', '\x1f', '-d', db, '-f', '-'], { env: clientEnv({ ...conn.env, PGDATABASE: db }), input: script, timeoutMs: 120_000, signal });
  const rows: (string[][] | null)[] = queries.map(() => null);
  let cur = -1;
  for (const line of r.stdout.split('\n')) {
    const m = /^@@bq(\d+|end)$/.exec(line);
    if (m) {
      cur = m[1] === 'end' ? -1 : Number(m[1]);
      if (cur >= 0) rows[cur] = [];
      continue;
    }
    if (cur >= 0 && line !== '') rows[cur]!.push(line.split('\x1f'));
  }
  // A query that failed printed its error instead of rows: psql names the line; map it back.
  const failed = new Set<number>();
  let lineNo = 0;
  const starts = queries.map((sql) => {
    const s = lineNo + 2;
    lineNo += 1 + sql.trim().split('\n').length;
    return s;
  });
  for (const m of r.stderr.matchAll(/psql:<stdin>:(\d+): (?:ERROR|FATAL)/g)) {
    const at = Number(m[1]);
    let idx = -1;
    for (let i = 0; i < starts.length; i++) if (starts[i]! <= at) idx = i;
    if (idx >= 0) failed.add(idx);
  }
  for (const i of failed) rows[i] = null;
  return { rows, stderr: r.stderr, code: r.code };
}

function firstError(stderr: string): string {
  const m = /(?:ERROR|FATAL):\s+([^\n]*)/.exec(stderr) ?? /psql: error: ([^\n]*)/.exec(stderr);
  return (m ? m[1]! : tail(stderr, 3)).trim() || 'psql failed';
}

export class PsqlTarget implements SqlTarget {
  readonly dialect = 'postgres' as const;
  private client: PipedClient | null = null;
  /** psql names the line where a statement ENDS; the dump's line where it starts, for the last statements sent. */
  private ends = new Map<number, { line: number; head: string; copy: boolean }>();
  private copyLine = 0;
  private copyHead = '';
  private closed = false;

  private constructor(
    private readonly bins: PgBins,
    private readonly conn: PgConn,
    readonly database: string,
    readonly info: EngineInfo,
    readonly caps: TargetCaps,
    private readonly serverNum: number,
    private readonly onClose: () => Promise<void>,
  ) {}

  /**
   * Create the scratch database (never an existing one), learn what the server has,
   * start psql on it. `custom`: the bytes are a custom-format archive (see feedArchive).
   */
  static async open(bins: PgBins, conn: PgConn, mode: EngineInfo['mode'], onClose: () => Promise<void>, signal?: AbortSignal): Promise<PsqlTarget> {
    const database = `backupctl_restore_${randomName()}`;
    // One psql session: what the server has, then the scratch database (never an existing one: CREATE fails).
    const probe = await psqlQueries(
      bins.psql,
      conn,
      conn.adminDb,
      ['SHOW server_version', 'SHOW server_version_num', 'SELECT name FROM pg_settings', 'SELECT name FROM pg_available_extensions', `CREATE DATABASE ${q(database)}`],
      signal,
    );
    if (probe.rows[0] === null) throw new EngineUnavailableError(`cannot connect to PostgreSQL: ${redact(firstError(probe.stderr), conn.secrets)}`);
    if (probe.rows[4] === null || probe.code !== 0) throw new EngineUnavailableError(`cannot create the scratch database ${database}: ${redact(firstError(probe.stderr), conn.secrets)}`);
    const version = probe.rows[0]![0]?.[0]?.split(' ')[0] ?? null;
    const caps: TargetCaps = {
      settings: new Set((probe.rows[2] ?? []).map((r) => r[0]!.toLowerCase())),
      extensions: new Set((probe.rows[3] ?? []).map((r) => r[0]!)),
    };
    const target = new PsqlTarget(bins, conn, database, { mode, product: 'PostgreSQL', version }, caps, Number(probe.rows[1]?.[0]?.[0] ?? 0), onClose);
    return target;
  }

  private feed(): PipedClient {
    if (!this.client) {
      this.client = new PipedClient(this.bins.psql, ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', this.database, '-f', '-'], {
        env: clientEnv({ ...this.conn.env, PGDATABASE: this.database, PGOPTIONS: '-c client_min_messages=warning' }),
      });
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

  async copyData(text: string): Promise<void> {
    await this.feed().write(text);
  }

  async copyEnd(text: string, line: number): Promise<void> {
    this.remember(line, { line: this.copyLine, head: this.copyHead, copy: true });
    await this.feed().write(text);
  }

  async finish(): Promise<void> {
    const r = await this.feed().end();
    if (r.code === 0) return;
    const m = /psql:<stdin>:(\d+): (?:ERROR|FATAL):\s+([^\n]*)(?:\n(?:DETAIL|HINT|LINE \d+|CONTEXT):[^\n]*)*/.exec(r.stderr);
    if (!m) throw new RestoreError(redact(firstError(r.stderr) || `psql exited with ${r.code ?? r.signal}`, this.conn.secrets));
    const at = Number(m[1]);
    const known = this.ends.get(at);
    let line = known?.line ?? at;
    const copyAt = /CONTEXT:\s+COPY [^,]+, line (\d+)/.exec(m[0]);
    if (known?.copy && copyAt) line = known.line + Number(copyAt[1]);
    throw new RestoreError(redact(m[2]!.trim(), this.conn.secrets), line, known?.head);
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

  async countRows(tables: string[]): Promise<(number | null)[]> {
    if (tables.length === 0) return [];
    const r = await psqlQueries(this.bins.psql, this.conn, this.database, tables.map((t) => `SELECT count(*) FROM ONLY ${t}`));
    return r.rows.map((rows) => (rows && rows[0] ? Number(rows[0][0]) : null));
  }

  async countTables(): Promise<number> {
    const r = await psqlQueries(this.bins.psql, this.conn, this.database, [
      "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'",
    ]);
    return Number(r.rows[0]?.[0]?.[0] ?? 0);
  }

  async firstCell(sql: string): Promise<string | null> {
    const r = await run(this.bins.psql, ['-X', '-q', '-A', '-t', '-F', '\x1f', '-v', 'ON_ERROR_STOP=1', '-P', 'null=\x1e', '-d', this.database, '-f', '-'], {
      env: clientEnv({ ...this.conn.env, PGDATABASE: this.database }),
      input: `${sql}\n`,
      timeoutMs: 300_000,
    });
    if (r.code !== 0) throw new Error(redact(firstError(r.stderr), this.conn.secrets));
    const line = r.stdout.split('\n')[0];
    if (line === undefined || r.stdout === '') return null;
    const cell = line.split('\x1f')[0]!;
    return cell === '\x1e' ? null : cell;
  }

  async close(keep: boolean): Promise<string[]> {
    if (this.closed) return [];
    this.closed = true;
    const warnings: string[] = [];
    await this.client?.kill();
    // An ephemeral local server goes away with its folder: no DROP needed there.
    if (!keep && this.info.mode !== 'local') {
      const force = this.serverNum >= 130000 ? ' WITH (FORCE)' : '';
      const r = await psqlQueries(this.bins.psql, this.conn, this.conn.adminDb, [`DROP DATABASE IF EXISTS ${q(this.database)}${force}`]).catch(() => null);
      if (!r || r.rows[0] === null) warnings.push(`could not drop the scratch database ${this.database}: ${r ? redact(firstError(r.stderr), this.conn.secrets) : 'psql failed'}`);
    }
    await this.onClose();
    return warnings;
  }

  async abort(): Promise<void> {
    await this.close(false);
  }
}

/** initdb and postgres of one installation: PATH first, then /usr/lib/postgresql/<newest>/bin. */
export function findPgServer(): { initdb: string; postgres: string } | null {
  for (const dir of [...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean), ...postgresBinDirs()]) {
    const initdb = path.join(dir, 'initdb');
    const postgres = path.join(dir, 'postgres');
    if (isExecutable(initdb) && isExecutable(postgres)) return { initdb, postgres };
  }
  return null;
}

/** An ephemeral PostgreSQL: initdb in a private folder, postgres on a Unix socket there, no TCP. */
export async function startLocalPostgres(runAs: string | undefined, signal?: AbortSignal): Promise<{ server: EphemeralServer; conn: PgConn }> {
  const found = findPgServer();
  if (!found) throw new RestoreError('no PostgreSQL server binaries (initdb, postgres)');
  const who = serverAccount('postgres', runAs);
  if (who.problem) throw new RestoreError(who.problem);
  const dir = await privateDir(who.account);
  try {
    const data = path.join(dir, 'data');
    const init = await run(found.initdb, ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale', '-N'], {
      env: serverEnv(who.account),
      cwd: dir,
      timeoutMs: 120_000,
      signal,
      ...(who.account ? { uid: who.account.uid, gid: who.account.gid } : {}),
    });
    if (init.code !== 0) throw new RestoreError(`initdb failed: ${tail(init.stderr || init.stdout)}`);
    await access(path.join(data, 'PG_VERSION'));
    const server = await startServer({
      cmd: found.postgres,
      args: ['-D', data, '-k', dir, '-c', "listen_addresses=", '-c', 'unix_socket_permissions=0700', '-F', '-c', 'full_page_writes=off', '-c', 'synchronous_commit=off', '-c', 'max_wal_size=1GB', '-c', 'logging_collector=off'],
      dir,
      account: who.account,
      ready: /ready to accept connections/,
      quitSignal: 'SIGQUIT',
      stopSignal: 'SIGINT',
      signal,
      name: 'postgres',
    });
    return { server, conn: { env: { PGHOST: dir, PGUSER: 'postgres' }, adminDb: 'postgres', secrets: [] } };
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
}
