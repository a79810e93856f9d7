// The psql sessions of the PostgreSQL engine (postgres.ts): one restricted
// psql per batch of queries, and the cleanup of what a test made on a server
// (the scratch database, its prepared transactions, the throwaway login).
import { randomBytes } from 'node:crypto';
import { tail } from '../servers/ephemeral.js';
import { clientEnv, redact, run } from '../servers/proc.js';

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
  /** psql's version ("15.18"), null when it could not be read. */
  version?: string | null;
}

export function q(ident: string): string {
  return `"${ident.replace(/"/g, '""')}"`;
}

export function lit(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** A key the dump cannot know: psql refuses every meta-command after `\restrict KEY` (a dump's `\unrestrict` never matches it). */
export function restrictLine(): string {
  return `\\restrict ${randomBytes(24).toString('hex')}\n`;
}

/** psql's answer to a few queries, in one restricted session: each query's rows (fields split), null where it failed. */
export async function psqlQueries(psql: string, conn: PgConn, db: string, queries: string[], signal?: AbortSignal, stopOnError = false): Promise<{ rows: (string[][] | null)[]; stderr: string; code: number | null }> {
  // The markers are queries: under \\restrict, psql refuses \\echo too.
  const script = restrictLine() + queries.map((sql, i) => `SELECT '@@bq${i}';\n${sql.trim().replace(/;?\s*$/, ';')}\n`).join('') + "SELECT '@@bqend';\n";
  const args = ['-X', '-q', '-A', '-t', '-F', '\x1f', ...(stopOnError ? ['-v', 'ON_ERROR_STOP=1'] : []), '-d', db, '-f', '-'];
  const r = await run(psql, args, { env: clientEnv({ ...conn.env, PGDATABASE: db }), input: script, timeoutMs: 120_000, signal });
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
  // A query that failed printed its error instead of rows: psql names the line; map it back (line 1 is \restrict).
  const failed = new Set<number>();
  let lineNo = 1;
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

export function firstError(stderr: string): string {
  const m = /(?:ERROR|FATAL):\s+([^\n]*)/.exec(stderr) ?? /psql: error: ([^\n]*)/.exec(stderr);
  return (m ? m[1]! : tail(stderr, 3)).trim() || 'psql failed';
}

/** The prepared transactions of the scratch database (PREPARE TRANSACTION outlives its session, holding locks and the database). */
const PREPARED = 'SELECT gid FROM pg_prepared_xacts WHERE database = current_database()';

/**
 * Roll back every prepared transaction of `database`, as each connection in turn (the dump's own login first:
 * ROLLBACK PREPARED needs the user that prepared it, or a superuser). The gids rolled back, and those left.
 */
export async function rollbackPrepared(psql: string, conns: PgConn[], database: string): Promise<{ rolledBack: string[]; left: string[] }> {
  const rolledBack: string[] = [];
  let left: string[] = [];
  for (const conn of conns) {
    const found = await psqlQueries(psql, conn, database, [PREPARED]).catch(() => null);
    const gids = (found?.rows[0] ?? []).map((r) => r[0]!);
    if (found && found.rows[0] === null) continue; // cannot connect as this one: the next
    left = gids;
    if (!gids.length) break;
    // ROLLBACK PREPARED runs in no transaction block: one statement each, in one session (psql's autocommit).
    const r = await psqlQueries(psql, conn, database, gids.map((g) => `ROLLBACK PREPARED ${lit(g)}`)).catch(() => null);
    gids.forEach((g, i) => {
      if (r && r.rows[i] !== null) rolledBack.push(g);
    });
    left = gids.filter((g) => !rolledBack.includes(g));
    if (!left.length) break;
  }
  return { rolledBack, left };
}

/**
 * Drop the scratch database and the throwaway login: its prepared transactions rolled back first (a DROP
 * DATABASE fails while one holds it), the login's LOGIN taken first (whatever fails later, it can no longer log
 * in), its sessions terminated. A message naming what is left when something is.
 */
export async function dropSession(bins: PgBins, admin: PgConn, database: string, login: string | null, serverNum: number, session: PgConn | null = null): Promise<string | null> {
  const force = serverNum >= 130000 ? ' WITH (FORCE)' : '';
  const prepared = await rollbackPrepared(bins.psql, [...(session ? [session] : []), admin], database);
  const queries = [
    ...(login ? [`ALTER ROLE ${q(login)} NOLOGIN`] : []),
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${lit(database)} AND pid <> pg_backend_pid()`,
    `DROP DATABASE IF EXISTS ${q(database)}${force}`,
    ...(login ? [`DROP ROLE IF EXISTS ${q(login)}`] : []),
  ];
  const r = await psqlQueries(bins.psql, admin, admin.adminDb, queries).catch(() => null);
  const held = prepared.left.length ? ` (${prepared.left.length} prepared transaction${prepared.left.length > 1 ? 's' : ''} could not be rolled back)` : '';
  if (!r) return `could not drop the scratch database ${database}${login ? ` and the login ${login}` : ''}: psql failed${held}`;
  const dbAt = queries.findIndex((x) => x.startsWith('DROP DATABASE'));
  if (r.rows[dbAt] === null) return `could not drop the scratch database ${database}${login ? ` (nor the login ${login}, which owns it)` : ''}: ${redact(firstError(r.stderr), admin.secrets)}${held}`;
  if (login && r.rows[queries.length - 1] === null) return `could not drop the login ${login}: ${redact(firstError(r.stderr), admin.secrets)}`;
  return null;
}

/**
 * The rows of one table the dump created, counted only while it is a table still (relkind r or p): a view, a
 * materialized view or a foreign table of the same name (the table dropped, a view over constant rows made in
 * its place) counts as nothing (NULL), never as the rows the dump held.
 */
export function countTable(name: string): string {
  return `SELECT CASE WHEN (SELECT c.relkind FROM pg_class c WHERE c.oid = to_regclass(${lit(name)})) IN ('r', 'p') THEN (SELECT count(*) FROM ONLY ${name}) END`;
}
