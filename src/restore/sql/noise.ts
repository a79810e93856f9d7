// The noise of a dump taken on another server, handled as
// `pg_restore --no-owner --no-privileges` does (issue 24 §2): each statement
// is passed, rewritten, skipped (with a warning, counted by kind) or refused.
// And the one rule that protects the user's server: CREATE DATABASE, USE,
// \connect and their kin never reach it; the restore goes into the scratch
// database, and a dump that holds several databases is refused.
import { normalizeName } from '../../pipeline/sql-rows.js';
import type { TargetCaps } from './target.js';

export type Decision = { action: 'pass' } | { action: 'skip'; kind: string; what: string } | { action: 'rewrite'; text: string; kind: string; what: string } | { action: 'fail'; message: string };

const PASS: Decision = { action: 'pass' };

const NAME = '(?:"(?:[^"]|"")+"|`(?:[^`]|``)+`|[A-Za-z_\\u0080-\\uffff][\\w$\\u0080-\\uffff]*)';

/** One warning per kind of skipped statement: how many, and the first line. */
export class Warnings {
  private kinds = new Map<string, { what: string; count: number; line: number }>();
  constructor(private readonly onFirst?: (line: string) => void) {}

  /** One warning per distinct message (`kind` groups them for callers that count). */
  add(kind: string, what: string, line: number): void {
    const key = what || kind;
    const k = this.kinds.get(key);
    if (k) {
      k.count++;
      return;
    }
    this.kinds.set(key, { what, count: 1, line });
    this.onFirst?.(line > 0 ? `${what} (line ${line})` : what);
  }

  list(): string[] {
    return [...this.kinds.values()].map((k) => (k.line <= 0 ? k.what : k.count === 1 ? `${k.what} (line ${k.line})` : `${k.what}: ${k.count} times, first at line ${k.line}`));
  }
}

function unquote(name: string): string {
  const m = /^"((?:[^"]|"")*)"$/.exec(name) ?? /^`((?:[^`]|``)*)`$/.exec(name) ?? /^'((?:[^']|'')*)'$/.exec(name);
  return m ? m[1]!.replace(/""|``|''/g, (s) => s[0]!) : name;
}

/** A mysql statement as the server reads it: /*!NNNNN ... *\/ opened. */
function mysqlHead(head: string): string {
  return head.slice(0, 2000).replace(/\/\*M?!\d*\s?/g, '').replace(/\*\//g, ' ').replace(/^\s+/, '');
}

/** What a statement filter of one dialect sees of the dump's filter: the target, the scratch database, what it skipped. */
export interface NoiseScope {
  readonly caps: TargetCaps;
  readonly scratch: string;
  readonly skippedExtensions: Set<string>;
  /** Notes a database the dump names: the refusal when it is a second one, else null. */
  database(name: string): Decision | null;
}

/** What the noise filter asks a SQL dialect (its entry in DIALECTS, dialects.ts). */
export interface NoiseRules {
  /** The fate of one statement of a dump in this dialect. */
  statement(f: NoiseScope, head: string): Decision;
  /** How to dump one database on its own ("pg_dump DBNAME"), for the refusal of a dump of several. */
  readonly oneDatabaseHint: string;
}

/** Decides the fate of each statement and meta-command of one dump. */
export class NoiseFilter implements NoiseScope {
  /** The databases the dump names (CREATE DATABASE, USE, \connect): more than one is refused. */
  readonly databases: string[] = [];
  readonly skippedExtensions = new Set<string>();
  private restricted: string | null = null;

  constructor(
    /** The dump's dialect (DIALECTS[dialect], dialects.ts). */
    private readonly rules: NoiseRules,
    readonly caps: TargetCaps,
    readonly scratch: string,
  ) {}

  database(name: string): Decision | null {
    if (!this.databases.includes(name)) this.databases.push(name);
    if (this.databases.length > 1) {
      return {
        action: 'fail',
        message: `the dump holds several databases (${this.databases.join(', ')}): restore-test restores one database into a scratch one, never into another; dump each database on its own (${this.rules.oneDatabaseHint}) to test it`,
      };
    }
    return null;
  }

  statement(head: string): Decision {
    return this.rules.statement(this, head);
  }

  /** A psql meta-command: \restrict and \unrestrict are consumed, \connect to the dump's one database is skipped, anything else refused. */
  meta(command: string, args: string): Decision {
    if (command === 'restrict') {
      this.restricted = args;
      return { action: 'skip', kind: 'restrict', what: '' };
    }
    if (command === 'unrestrict') {
      this.restricted = null;
      return { action: 'skip', kind: 'restrict', what: '' };
    }
    if (command === 'connect' || command === 'c') {
      const dbname = /dbname='((?:[^']|'')*)'/.exec(args)?.[1]?.replace(/''/g, "'") ?? unquote(args.split(/\s+/).filter((a) => !a.startsWith('-'))[0] ?? '');
      return this.database(dbname) ?? { action: 'skip', kind: 'database', what: `skipped \\connect ${dbname} (restored into the scratch database ${this.scratch})` };
    }
    if (command === 'encoding' && args) return { action: 'rewrite', text: `SET client_encoding = '${args.replace(/'/g, "''")}';`, kind: '', what: '' };
    if (this.restricted !== null) return { action: 'fail', message: `psql meta-command \\${command} inside a \\restrict block: refused, as psql refuses it` };
    return { action: 'fail', message: `psql meta-command \\${command} is refused: restore-test never runs a dump's client commands` };
  }

  /** mariadb-dump's first line: kept for MariaDB's client, skipped for MySQL's, which rejects it. */
  sandbox(): Decision {
    if (this.caps.clientIsMysql) return { action: 'skip', kind: 'sandbox', what: "skipped mariadb-dump's sandbox line (MySQL's client rejects it)" };
    if (this.caps.clientSandbox) return PASS;
    return { action: 'skip', kind: 'sandbox', what: "skipped mariadb-dump's sandbox line (this client does not know it)" };
  }
}

/** The fate of a statement of a PostgreSQL dump, as `pg_restore --no-owner --no-privileges` has it (DIALECTS.postgres). */
export function pgNoise(f: NoiseScope, head: string): Decision {
  const h = head.slice(0, 1000);
  const c = h.charCodeAt(0) | 0x20;
  // Fast path: the statements that carry the data.
  if (c === 105 /* i */ && /^INSERT\s/i.test(h)) return PASS;
  if (c === 97 /* a */) {
    if (/^ALTER\s[\s\S]*?\sOWNER\s+TO\s/i.test(h)) return { action: 'skip', kind: 'owner', what: 'skipped ALTER ... OWNER TO (restored without owners, as pg_restore --no-owner)' };
    if (/^ALTER\s+DEFAULT\s+PRIVILEGES\b/i.test(h)) return { action: 'skip', kind: 'privileges', what: 'skipped GRANT/REVOKE (restored without privileges, as pg_restore --no-privileges)' };
    const db = new RegExp(`^ALTER\\s+DATABASE\\s+(${NAME})`, 'i').exec(h);
    if (db) return f.database(unquote(db[1]!)) ?? { action: 'skip', kind: 'database', what: `skipped ALTER DATABASE (restored into the scratch database ${f.scratch})` };
    if (/^ALTER\s+(ROLE|USER|GROUP|TABLESPACE|SYSTEM|SUBSCRIPTION)\b/i.test(h)) return { action: 'skip', kind: 'cluster', what: 'skipped a server-wide statement (roles, tablespaces, ALTER SYSTEM, subscriptions never reach the server)' };
  }
  if (c === 103 /* g */ || c === 114 /* r */) {
    if (/^(GRANT|REVOKE)\s/i.test(h)) return { action: 'skip', kind: 'privileges', what: 'skipped GRANT/REVOKE (restored without privileges, as pg_restore --no-privileges)' };
  }
  if (c === 99 /* c */ && /^COPY\s[\s\S]*?\s(FROM|TO)\s+(PROGRAM\b|E?')/i.test(h)) {
    return { action: 'fail', message: 'COPY from or to a server file or program is refused: a dump only holds COPY ... FROM stdin' };
  }
  if (c === 115 /* s */) {
    const set = /^SET\s+(?:SESSION\s+|LOCAL\s+)?([A-Za-z_][\w.]*)\s*(?:=|TO\b)/i.exec(h);
    if (set && f.caps.settings && !set[1]!.includes('.') && !f.caps.settings.has(set[1]!.toLowerCase())) {
      return { action: 'skip', kind: `set:${set[1]!.toLowerCase()}`, what: `skipped SET ${set[1]} (the target server has no such parameter)` };
    }
    const cfg = /^SELECT\s+pg_catalog\.set_config\('([\w]+)'/i.exec(h);
    if (cfg && f.caps.settings && !f.caps.settings.has(cfg[1]!.toLowerCase())) return { action: 'skip', kind: `set:${cfg[1]!.toLowerCase()}`, what: `skipped set_config('${cfg[1]}') (the target server has no such parameter)` };
    if (/^SECURITY\s+LABEL\b/i.test(h)) return { action: 'skip', kind: 'label', what: 'skipped SECURITY LABEL' };
  }
  if (c === 99 /* c */) {
    const ext = new RegExp(`^CREATE\\s+EXTENSION\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?(${NAME})`, 'i').exec(h);
    if (ext) {
      const name = unquote(ext[1]!);
      if (f.caps.extensions && !f.caps.extensions.has(name)) {
        f.skippedExtensions.add(name);
        return { action: 'skip', kind: `extension:${name}`, what: `skipped CREATE EXTENSION ${name} (not available on the target server)` };
      }
      return PASS;
    }
    const cext = new RegExp(`^COMMENT\\s+ON\\s+EXTENSION\\s+(${NAME})`, 'i').exec(h);
    if (cext && f.skippedExtensions.has(unquote(cext[1]!))) return { action: 'skip', kind: `extension:${unquote(cext[1]!)}`, what: `skipped CREATE EXTENSION ${unquote(cext[1]!)} (not available on the target server)` };
    const db = new RegExp(`^CREATE\\s+DATABASE\\s+(${NAME})`, 'i').exec(h);
    if (db) return f.database(unquote(db[1]!)) ?? { action: 'skip', kind: 'database', what: `skipped CREATE DATABASE ${unquote(db[1]!)} (restored into the scratch database ${f.scratch})` };
    const cdb = new RegExp(`^COMMENT\\s+ON\\s+DATABASE\\s+(${NAME})`, 'i').exec(h);
    if (cdb) return { action: 'skip', kind: 'database', what: `skipped COMMENT ON DATABASE (restored into the scratch database ${f.scratch})` };
    if (/^CREATE\s+(ROLE|USER|GROUP|TABLESPACE|SUBSCRIPTION)\b/i.test(h)) return { action: 'skip', kind: 'cluster', what: 'skipped a server-wide statement (roles, tablespaces, ALTER SYSTEM, subscriptions never reach the server)' };
  }
  if (c === 100 /* d */) {
    const db = new RegExp(`^DROP\\s+DATABASE\\s+(?:IF\\s+EXISTS\\s+)?(${NAME})`, 'i').exec(h);
    if (db) return f.database(unquote(db[1]!)) ?? { action: 'skip', kind: 'database', what: `skipped DROP DATABASE (restored into the scratch database ${f.scratch})` };
    if (/^DROP\s+(ROLE|USER|GROUP|TABLESPACE|SUBSCRIPTION)\b/i.test(h)) return { action: 'skip', kind: 'cluster', what: 'skipped a server-wide statement (roles, tablespaces, ALTER SYSTEM, subscriptions never reach the server)' };
  }
  return PASS;
}

/** The fate of a statement of a MySQL/MariaDB dump (DIALECTS.mysql). */
export function mysqlNoise(f: NoiseScope, head: string): Decision {
  const h = mysqlHead(head);
  const c = h.charCodeAt(0) | 0x20;
  if (c === 105 /* i */ && /^INSERT\s/i.test(h)) return PASS;
  if (/^LOAD\s+(DATA|XML)\b/i.test(h) || /\bINTO\s+(OUT|DUMP)FILE\b/i.test(h.slice(0, 400))) {
    return { action: 'fail', message: 'LOAD DATA and INTO OUTFILE read or write server files: refused, a dump never holds them' };
  }
  if (c === 108 /* l */ || c === 117 /* u */) {
    const use = new RegExp(`^USE\\s+(${NAME})`, 'i').exec(h);
    if (use) return f.database(unquote(use[1]!)) ?? { action: 'skip', kind: 'database', what: `skipped USE ${unquote(use[1]!)} (restored into the scratch database ${f.scratch})` };
  }
  if (c === 99 /* c */) {
    const db = new RegExp(`^CREATE\\s+(?:DATABASE|SCHEMA)\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?(${NAME})`, 'i').exec(h);
    if (db) return f.database(unquote(db[1]!)) ?? { action: 'skip', kind: 'database', what: `skipped CREATE DATABASE ${unquote(db[1]!)} (restored into the scratch database ${f.scratch})` };
    if (/^CREATE\s+(USER|ROLE)\b/i.test(h) || /^CHANGE\s+(MASTER|REPLICATION)\b/i.test(h)) return { action: 'skip', kind: 'cluster', what: 'skipped a server-wide statement (users, roles, replication never reach the server)' };
  }
  if (c === 100 /* d */) {
    const db = new RegExp(`^DROP\\s+(?:DATABASE|SCHEMA)\\s+(?:IF\\s+EXISTS\\s+)?(${NAME})`, 'i').exec(h);
    if (db) return f.database(unquote(db[1]!)) ?? { action: 'skip', kind: 'database', what: `skipped DROP DATABASE (restored into the scratch database ${f.scratch})` };
    if (/^DROP\s+(USER|ROLE)\b/i.test(h)) return { action: 'skip', kind: 'cluster', what: 'skipped a server-wide statement (users, roles, replication never reach the server)' };
  }
  if (c === 97 /* a */) {
    const db = new RegExp(`^ALTER\\s+(?:DATABASE|SCHEMA)\\s+(${NAME})`, 'i').exec(h);
    if (db) return f.database(unquote(db[1]!)) ?? { action: 'skip', kind: 'database', what: `skipped ALTER DATABASE (restored into the scratch database ${f.scratch})` };
    if (/^ALTER\s+(USER|ROLE)\b/i.test(h)) return { action: 'skip', kind: 'cluster', what: 'skipped a server-wide statement (users, roles, replication never reach the server)' };
  }
  if (/^(GRANT|REVOKE)\s/i.test(h) || /^FLUSH\s+PRIVILEGES\b/i.test(h) || /^SET\s+(DEFAULT\s+ROLE|PASSWORD)\b/i.test(h)) {
    return { action: 'skip', kind: 'privileges', what: 'skipped GRANT/REVOKE (restored without privileges)' };
  }
  if (/^SET\s+(@@GLOBAL\.|@@PERSIST|GLOBAL\s|PERSIST\s)/i.test(h) || /^SET\s+@@(SESSION\.)?SQL_LOG_BIN\s*=/i.test(h) || /^(START|STOP|RESET)\s+(SLAVE|REPLICA|MASTER)\b/i.test(h)) {
    return { action: 'skip', kind: 'global', what: 'skipped a statement on server-wide state (SET GLOBAL, GTID_PURGED, SQL_LOG_BIN, replication)' };
  }
  // Not data: DEFINER clauses (objects belong to the restoring user) and MySQL 8's collations on MariaDB.
  let text: string | null = null;
  const kinds: string[] = [];
  if (!/^(INSERT|REPLACE)\s/i.test(h)) {
    if (/DEFINER\s*=/i.test(head)) {
      text = head.replace(/DEFINER\s*=\s*(?:`(?:[^`]|``)*`|'(?:[^'\\]|\\.|'')*'|[\w.$-]+)\s*@\s*(?:`(?:[^`]|``)*`|'(?:[^'\\]|\\.|'')*'|[\w.%$-]+)/gi, '');
      kinds.push('definer');
    }
    if (!f.caps.has0900Collations && /utf8mb4_0900_\w+/i.test(text ?? head)) {
      text = (text ?? head).replace(/utf8mb4_0900_\w+/gi, 'utf8mb4_unicode_ci');
      kinds.push('collation');
    }
  }
  if (text !== null) {
    const what = kinds.includes('collation')
      ? kinds.includes('definer')
        ? 'removed DEFINER clauses and mapped MySQL 8 collations utf8mb4_0900_* to utf8mb4_unicode_ci'
        : "mapped MySQL 8's utf8mb4_0900_* collations to utf8mb4_unicode_ci (the target lacks them)"
      : 'removed DEFINER clauses (objects belong to the restoring user)';
    return { action: 'rewrite', text, kind: kinds.join('+'), what };
  }
  return PASS;
}

