// --into URL (or BACKUPCTL_RESTORE_URL): postgres://user:pass@host:port/db,
// mysql://user:pass@host:port/db, and the Unix socket forms
// postgres://user:pass@/db?host=/run/postgresql and
// mysql://user:pass@localhost/db?socket=/run/mysqld/mysqld.sock. The password
// goes to the client's environment (PGPASSWORD, MYSQL_PWD), never to argv or
// a message: describe() is what may be shown.
import type { SqlDialect } from '../types.js';

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

export function parseIntoUrl(raw: string): ParsedUrl {
  const m = /^([a-z][a-z0-9+.-]*):\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?#]*)(?:\/([^?#]*))?(?:\?([^#]*))?$/i.exec(raw.trim());
  if (!m) throw new IntoUrlError(`--into must be a URL such as postgres://user:password@host:5432/postgres or mysql://user:password@host:3306/ (got ${describeRaw(raw)})`);
  const scheme = m[1]!.toLowerCase();
  let dialect: SqlDialect;
  if (scheme === 'postgres' || scheme === 'postgresql') dialect = 'postgres';
  else if (scheme === 'mysql' || scheme === 'mariadb') dialect = 'mysql';
  else throw new IntoUrlError(`--into: unknown scheme ${scheme}:// (allowed: postgres://, postgresql://, mysql://, mariadb://)`);
  const dec = (s: string | undefined) => (s === undefined || s === '' ? undefined : decodeURIComponent(s));
  const params: Record<string, string> = {};
  for (const part of (m[6] ?? '').split('&').filter(Boolean)) {
    const i = part.indexOf('=');
    params[decodeURIComponent(i < 0 ? part : part.slice(0, i))] = decodeURIComponent(i < 0 ? '' : part.slice(i + 1).replace(/\+/g, ' '));
  }
  const out: ParsedUrl = { dialect, user: dec(m[2]), password: dec(m[3]), database: dec(m[5]), params };
  const hostPort = m[4] ?? '';
  const hp = /^(\[[^\]]+\]|[^:]*)(?::(\d+))?$/.exec(hostPort);
  if (!hp) throw new IntoUrlError(`--into: cannot read the host of ${describeRaw(raw)}`);
  const host = dec(hp[1]!.replace(/^\[|\]$/g, ''));
  if (host?.startsWith('/')) out.socketDir = host;
  else if (host) out.host = host;
  if (hp[2]) out.port = Number(hp[2]);
  if (params.host?.startsWith('/')) {
    if (dialect === 'postgres') out.socketDir = params.host;
    else out.socket = params.host;
    delete params.host;
  }
  if (params.socket) {
    out.socket = params.socket;
    delete params.socket;
  }
  if (dialect === 'mysql' && out.socketDir) {
    out.socket = out.socketDir;
    delete out.socketDir;
  }
  return out;
}

/** The URL as it may be shown: never the password. */
export function describeRaw(raw: string): string {
  return raw.replace(/(\/\/[^:@/]*:)[^@/]*@/, '$1***@');
}
