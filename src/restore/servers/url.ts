// --into URL (or BACKUPCTL_RESTORE_URL), the server a restore engine of the
// placement "server" restores into (src/restore/servers/): postgres://user:pass@host:port/db,
// mysql://user:pass@host:port/db, and the Unix socket forms
// postgres://user:pass@/db?host=/run/postgresql and
// mysql://user:pass@localhost/db?socket=/run/mysqld/mysqld.sock. The password
// goes to the client's environment (PGPASSWORD, MYSQL_PWD), never to argv or
// a message: describe() is what may be shown.
import type { SqlDialect } from '../../pipeline/kinds.js';

/** What a --into URL of one SQL dialect is (part of its description, DIALECTS in src/restore/sql/dialects.ts). */
export interface UrlRules {
  /** The URL schemes of a server of this dialect, the first the one examples show. */
  readonly schemes: readonly string[];
  /** A URL of this dialect in the examples of a message (its default port shown). */
  readonly urlExample: string;
  /** A Unix socket path (?host=/..., a host that is a path) is a folder (PostgreSQL) or the socket file itself (MySQL). */
  readonly socket: 'folder' | 'file';
}

/** Each dialect's URL (here, as restore/servers/ imports no engine: test/unit/layers.test.ts); a new dialect's entry is a compile error until written. */
export const URL_RULES: Readonly<Record<SqlDialect, UrlRules>> = {
  postgres: { schemes: ['postgres', 'postgresql'], urlExample: 'postgres://user@host:5432/postgres', socket: 'folder' },
  mysql: { schemes: ['mysql', 'mariadb'], urlExample: 'mysql://user@host:3306/', socket: 'file' },
};

const URL_DIALECTS = Object.keys(URL_RULES) as SqlDialect[];

/** The dialect of a --into URL scheme (lower case), or undefined. */
export function dialectOfScheme(scheme: string): SqlDialect | undefined {
  return URL_DIALECTS.find((d) => URL_RULES[d].schemes.includes(scheme));
}

export interface ParsedUrl {
  dialect: SqlDialect;
  user?: string;
  password?: string;
  host?: string;
  port?: number;
  /** A Unix socket folder (postgres) or socket file (mysql). */
  socketDir?: string;
  socket?: string;
  database?: string;
  params: Record<string, string>;
}

export class IntoUrlError extends Error {}

/** decodeURIComponent that never throws (a raw % in a password): the text as given. */
function dec(s: string | undefined): string | undefined {
  if (s === undefined || s === '') return undefined;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const EXAMPLE = `a URL such as ${URL_DIALECTS.map((d) => URL_RULES[d].urlExample).join(' or ')} (the password in BACKUPCTL_RESTORE_URL or --into-file, percent-encoded: @ is %40)`;

/**
 * The parts of a --into URL. The user information ends at the LAST "@" before
 * the host (as browsers read it), so a password with an unencoded "@", "/", ":"
 * or "#" is read whole and never leaks into the host, a message or the ledger.
 * Errors never quote the URL: they may only show describeRaw().
 */
export function parseIntoUrl(raw: string): ParsedUrl {
  const text = raw.trim();
  const sm = /^([a-z][a-z0-9+.-]*):\/\/([\s\S]*)$/i.exec(text);
  if (!sm) throw new IntoUrlError(`--into must be ${EXAMPLE} (got ${describeRaw(raw)})`);
  const scheme = sm[1]!.toLowerCase();
  const dialect = dialectOfScheme(scheme);
  if (!dialect) throw new IntoUrlError(`--into: unknown scheme ${scheme}:// (allowed: ${URL_DIALECTS.flatMap((d) => URL_RULES[d].schemes.map((s) => `${s}://`)).join(', ')})`);
  const rules = URL_RULES[dialect];
  let rest = sm[2]!;
  let userinfo: string | undefined;
  // The query may hold "@" (a socket path): the user information is before the first "?" that follows the last "@" before it.
  const q0 = rest.indexOf('?');
  const beforeQuery = q0 < 0 ? rest : rest.slice(0, q0);
  let at = beforeQuery.lastIndexOf('@');
  if (at < 0 && q0 >= 0) {
    // An unencoded "?" inside the password: the last "@" before a "/" or the end.
    const slash = rest.indexOf('/', rest.lastIndexOf('@') + 1);
    const cand = rest.lastIndexOf('@', slash < 0 ? rest.length : slash);
    if (cand >= 0 && rest.slice(0, cand).includes(':')) at = cand;
  }
  if (at >= 0) {
    userinfo = rest.slice(0, at);
    rest = rest.slice(at + 1);
  }
  const m = /^([^/?#]*)(?:\/([^?#]*))?(?:\?([^#]*))?(?:#.*)?$/.exec(rest);
  if (!m) throw new IntoUrlError(`--into: cannot read ${describeRaw(raw)} as ${EXAMPLE}`);
  let user: string | undefined;
  let password: string | undefined;
  if (userinfo !== undefined) {
    const c = userinfo.indexOf(':');
    user = dec(c < 0 ? userinfo : userinfo.slice(0, c));
    password = c < 0 ? undefined : (dec(userinfo.slice(c + 1)) ?? '');
    if (password === '') password = undefined;
  }
  const params: Record<string, string> = {};
  for (const part of (m[3] ?? '').split('&').filter(Boolean)) {
    const i = part.indexOf('=');
    params[dec(i < 0 ? part : part.slice(0, i)) ?? ''] = dec(i < 0 ? '' : part.slice(i + 1).replace(/\+/g, ' ')) ?? '';
  }
  const out: ParsedUrl = { dialect, user, password, database: dec(m[2]), params };
  const hostPort = m[1] ?? '';
  const hp = /^(\[[^\]]+\]|[^:]*)(?::(\d+))?$/.exec(hostPort);
  if (!hp) throw new IntoUrlError(`--into: cannot read the host and port of ${describeRaw(raw)}`);
  const host = dec(hp[1]!.replace(/^\[|\]$/g, ''));
  if (host?.startsWith('/')) out.socketDir = host;
  else if (host) out.host = host;
  if (hp[2]) out.port = Number(hp[2]);
  if (params.host?.startsWith('/')) {
    if (rules.socket === 'folder') out.socketDir = params.host;
    else out.socket = params.host;
    delete params.host;
  }
  if (params.socket) {
    out.socket = params.socket;
    delete params.socket;
  }
  // A socket URL keeps its port (?port=5433 names the socket file .s.PGSQL.5433; MySQL keeps it for a TCP fallback).
  if (params.port !== undefined) {
    if (!/^\d{1,5}$/.test(params.port)) throw new IntoUrlError('--into: port= must be a number');
    out.port = Number(params.port);
    delete params.port;
  }
  if (rules.socket === 'file' && out.socketDir) {
    out.socket = out.socketDir;
    delete out.socketDir;
  }
  return out;
}

/** The URL as it may be shown: never the password, nor any part of it (everything before the last "@" but the user name). */
export function describeRaw(raw: string): string {
  const text = raw.trim();
  const sm = /^([a-z][a-z0-9+.-]*:\/\/)([\s\S]*)$/i.exec(text);
  if (!sm) return '(not a URL)';
  const rest = sm[2]!;
  const at = rest.lastIndexOf('@');
  if (at < 0) return `${sm[1]}${rest}`;
  const userinfo = rest.slice(0, at);
  const c = userinfo.indexOf(':');
  return `${sm[1]}${c < 0 ? userinfo : `${userinfo.slice(0, c)}:***`}@${rest.slice(at + 1)}`;
}

/** The variables that carry a database password or backupctl's own secrets (the token, the --into URL). */
const SECRET_VARS = /^(BACKUPCTL_.*|PGPASSWORD|PGPASSFILE|PGSERVICEFILE|MYSQL_PWD|MYSQL_PASSWORD|MARIADB_PWD|MARIADB_PASSWORD|MYSQL_HISTFILE)$/;

/**
 * The environment for a program that runs on restored bytes (--exec, issue 28
 * §8): the caller's environment without the user's database passwords
 * (PGPASSWORD, MYSQL_PWD, ...), without any BACKUPCTL_* variable (the token,
 * BACKUPCTL_RESTORE_URL), and without any variable whose value holds one of
 * `secrets` (the --into password, however it reached us).
 */
export function scrubbedEnv(env: NodeJS.ProcessEnv, secrets: (string | undefined)[] = []): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  const live = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 3);
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || SECRET_VARS.test(k)) continue;
    if (live.some((s) => v.includes(s) || v.includes(encodeURIComponent(s)))) continue;
    out[k] = v;
  }
  return out;
}
