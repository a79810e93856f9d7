// MySQL and MariaDB through their client: a scratch database on the user's
// server (--into mysql://...) or on an ephemeral local server
// (mariadb-install-db + mariadbd in a private folder, --skip-networking).
// The dump streams into `mariadb` (or `mysql`) with its line numbers kept:
// "ERROR 1064 (42000) at line N" is a line of the dump. MariaDB's client is
// put in sandbox mode first, so a dump cannot run shell or file commands.
import path from 'node:path';
import type { EngineInfo } from '../types.js';
import { PipedClient } from './client.js';
import { privateDir, serverAccount, startServer, tail, serverEnv, type EphemeralServer } from './ephemeral.js';
import { clientEnv, findBinary, randomName, redact, run, SBIN_DIRS } from './proc.js';
import { EngineUnavailableError, RestoreError, type SqlTarget, type TargetCaps } from './target.js';
import type { ParsedUrl } from './url.js';
import { rm } from 'node:fs/promises';

export interface MyConn {
  /** --host/--port/--socket/--user: never the password (MYSQL_PWD). */
  args: string[];
  env: Record<string, string>;
  secrets: string[];
}

export interface MyClient {
  bin: string;
  mariadb: boolean;
  /** The client knows mariadb-dump's sandbox line (MariaDB 10.5.25, 10.6.18, 10.11.8, 11.0.6, 11.1.5, 11.2.4, 11.4.2 and later). */
  sandbox: boolean;
  version: string;
}

const SANDBOX = '/*M!999999\\- enable the sandbox mode */\n';

export async function findMyClient(): Promise<MyClient | null> {
  const bin = findBinary('mariadb') ?? findBinary('mysql');
  if (!bin) return null;
  const r = await run(bin, ['--version']).catch(() => null);
  const text = r?.stdout ?? '';
  const mariadb = /MariaDB/i.test(text);
  const v = /Distrib (\d+)\.(\d+)\.(\d+)/.exec(text) ?? /Ver (\d+)\.(\d+)\.(\d+)/.exec(text);
  const [maj, min, pat] = v ? [Number(v[1]), Number(v[2]), Number(v[3])] : [0, 0, 0];
  const firsts: Record<string, number> = { '10.5': 25, '10.6': 18, '10.11': 8, '11.0': 6, '11.1': 5, '11.2': 4, '11.4': 2 };
  const key = `${maj}.${min}`;
  const sandbox = mariadb && (key in firsts ? pat >= firsts[key]! : maj > 11 || (maj === 11 && min >= 3));
  return { bin, mariadb, sandbox, version: v ? `${maj}.${min}.${pat}` : 'unknown' };
}

export function myConnFromUrl(u: ParsedUrl): MyConn {
  const args: string[] = [];
  if (u.socket) args.push(`--socket=${u.socket}`);
  else if (u.host) args.push(`--host=${u.host}`, '--protocol=TCP');
  if (u.port) args.push(`--port=${u.port}`);
  if (u.user) args.push(`--user=${u.user}`);
  // For the client's environment (written, never read: an object literal keeps help-topics' scan of env reads exact).
  const env: Record<string, string> = u.password ? { MYSQL_PWD: u.password } : {};
  return { args, env, secrets: u.password ? [u.password] : [] };
}

function q(ident: string): string {
  return `\`${ident.replace(/`/g, '``')}\``;
}

async function myQueries(client: MyClient, conn: MyConn, db: string | null, queries: string[]): Promise<{ rows: (string[][] | null)[]; stderr: string; code: number | null }> {
  const script = queries.map((sql, i) => `SELECT '@@bq${i}';\n${sql.trim().replace(/;?\s*$/, ';')}\n`).join('') + "SELECT '@@bqend';\n";
  const args = ['--no-defaults', ...conn.args, '--batch', '--skip-column-names', '--force', ...(db ? [`--database=${db}`] : [])];
  const r = await run(client.bin, args, { env: clientEnv(conn.env), input: script, timeoutMs: 120_000 });
  const rows: (string[][] | null)[] = queries.map(() => null);
  let cur = -1;
  for (const line of r.stdout.split('\n')) {
    const m = /^@@bq(\d+|end)$/.exec(line);
    if (m) {
      cur = m[1] === 'end' ? -1 : Number(m[1]);
      if (cur >= 0) {
        rows[cur] = [];
      }
      continue;
    }
    if (cur >= 0 && line !== '') rows[cur]!.push(line.split('\t'));
  }
  // A failed query: its ERROR names the line of the script.
  for (const m of r.stderr.matchAll(/ERROR \d+ \([^)]*\) at line (\d+)/g)) {
    const at = Number(m[1]);
    let lineNo = 1;
    for (let i = 0; i < queries.length; i++) {
      const start = lineNo + 1;
      lineNo += 1 + queries[i]!.trim().split('\n').length;
      if (at >= start && at < lineNo) rows[i] = null;
    }
  }
  return { rows, stderr: r.stderr, code: r.code };
}

function firstError(stderr: string): string {
  const m = /ERROR[^:]*:\s*([^\n]*)/.exec(stderr);
  return (m ? m[1]! : tail(stderr, 3)).trim() || 'the client failed';
}

export class MysqlTarget implements SqlTarget {
  readonly dialect = 'mysql' as const;
  private feeder: PipedClient | null = null;
  private offset = 0;
  private closed = false;

  private constructor(
    private readonly client: MyClient,
    private readonly conn: MyConn,
    readonly database: string,
    readonly info: EngineInfo,
    readonly caps: TargetCaps,
    private readonly onClose: () => Promise<void>,
  ) {}

  static async open(client: MyClient, conn: MyConn, mode: EngineInfo['mode'], onClose: () => Promise<void>): Promise<MysqlTarget> {
    const probe = await myQueries(client, conn, null, ['SELECT VERSION()', "SELECT COUNT(*) FROM information_schema.COLLATIONS WHERE COLLATION_NAME = 'utf8mb4_0900_ai_ci'"]);
    if (probe.rows[0] === null || !probe.rows[0]![0]) throw new EngineUnavailableError(`cannot connect to the MySQL/MariaDB server: ${redact(firstError(probe.stderr), conn.secrets)}`);
    const full = probe.rows[0]![0]![0] ?? '';
    const product = /mariadb/i.test(full) ? 'MariaDB' : 'MySQL';
    const version = /^(\d+\.\d+\.\d+)/.exec(full)?.[1] ?? null;
    const caps: TargetCaps = {
      has0900Collations: Number(probe.rows[1]?.[0]?.[0] ?? 0) > 0,
      clientSandbox: client.sandbox,
      clientIsMysql: !client.mariadb,
    };
    const database = `backupctl_restore_${randomName()}`;
    const created = await myQueries(client, conn, null, [`CREATE DATABASE ${q(database)}`]);
    if (created.rows[0] === null || /ERROR/.test(created.stderr)) throw new EngineUnavailableError(`cannot create the scratch database ${database}: ${redact(firstError(created.stderr), conn.secrets)}`);
    return new MysqlTarget(client, conn, database, { mode, product, version }, caps, onClose);
  }

  private feed(): PipedClient {
    if (!this.feeder) {
      this.feeder = new PipedClient(this.client.bin, ['--no-defaults', ...this.conn.args, `--database=${this.database}`, '--batch', '--default-character-set=utf8mb4'], { env: clientEnv(this.conn.env) });
      if (this.client.sandbox) {
        // Our own first line: the client refuses shell, file and connect commands from here on.
        void this.feeder.write(SANDBOX);
        this.offset = 1;
      }
    }
    return this.feeder;
  }

  get dead(): boolean {
    return this.feeder?.dead ?? false;
  }

  async statement(text: string): Promise<void> {
    await this.feed().write(text);
  }

  async blank(lines: number): Promise<void> {
    if (lines > 0) await this.feed().write('\n'.repeat(lines));
  }

  async raw(text: string): Promise<void> {
    await this.feed().write(text);
  }

  async copyStart(): Promise<void> {
    throw new RestoreError('COPY ... FROM stdin is PostgreSQL, not MySQL');
  }

  async copyData(): Promise<void> {}

  async copyEnd(): Promise<void> {}

  async finish(): Promise<void> {
    const r = await this.feed().end();
    if (r.code === 0 && !/^ERROR/m.test(r.stderr)) return;
    const m = /ERROR (\d+) \(([^)]*)\) at line (\d+)(?: in file: '[^']*')?: ([^\n]*)/.exec(r.stderr) ?? /ERROR at line (\d+)(): ([^\n]*)/.exec(r.stderr);
    if (m && m.length === 5) throw new RestoreError(redact(`ERROR ${m[1]} (${m[2]}): ${m[4]!.trim()}`, this.conn.secrets), Number(m[3]) - this.offset);
    if (m) throw new RestoreError(redact(m[3]!.trim(), this.conn.secrets), Number(m[1]) - this.offset);
    throw new RestoreError(redact(firstError(r.stderr) || `the client exited with ${r.code ?? r.signal}`, this.conn.secrets));
  }

  async countRows(tables: string[]): Promise<(number | null)[]> {
    if (tables.length === 0) return [];
    const r = await myQueries(this.client, this.conn, this.database, tables.map((t) => `SELECT COUNT(*) FROM ${q(t)}`));
    return r.rows.map((rows) => (rows && rows[0] ? Number(rows[0][0]) : null));
  }

  async countTables(): Promise<number> {
    const r = await myQueries(this.client, this.conn, this.database, [`SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = '${this.database}' AND TABLE_TYPE = 'BASE TABLE'`]);
    return Number(r.rows[0]?.[0]?.[0] ?? 0);
  }

  async firstCell(sql: string): Promise<string | null> {
    const r = await run(this.client.bin, ['--no-defaults', ...this.conn.args, `--database=${this.database}`, '--batch', '--skip-column-names'], {
      env: clientEnv(this.conn.env),
      input: `${sql.trim().replace(/;?\s*$/, ';')}\n`,
      timeoutMs: 300_000,
    });
    if (r.code !== 0 || /^ERROR/m.test(r.stderr)) throw new Error(redact(firstError(r.stderr), this.conn.secrets));
    if (r.stdout === '') return null;
    const cell = r.stdout.split('\n')[0]!.split('\t')[0]!;
    return cell === 'NULL' ? null : cell;
  }

  async close(keep: boolean): Promise<string[]> {
    if (this.closed) return [];
    this.closed = true;
    const warnings: string[] = [];
    await this.feeder?.kill();
    if (!keep && this.info.mode !== 'local') {
      const r = await myQueries(this.client, this.conn, null, [`DROP DATABASE IF EXISTS ${q(this.database)}`]).catch(() => null);
      if (!r || r.rows[0] === null) warnings.push(`could not drop the scratch database ${this.database}: ${r ? redact(firstError(r.stderr), this.conn.secrets) : 'the client failed'}`);
    }
    await this.onClose();
    return warnings;
  }

  async abort(): Promise<void> {
    await this.close(false);
  }
}

export function findMyServer(): { install: string | null; server: string } | null {
  const server = findBinary('mariadbd', SBIN_DIRS) ?? findBinary('mysqld', SBIN_DIRS);
  if (!server) return null;
  const install = findBinary('mariadb-install-db', SBIN_DIRS) ?? findBinary('mysql_install_db', SBIN_DIRS);
  if (!install && /mariadbd$/.test(server)) return null;
  return { install, server };
}

/** An ephemeral MariaDB (or MySQL): a data folder made in a private folder, the server on a Unix socket there, --skip-networking. */
export async function startLocalMysql(runAs: string | undefined, signal?: AbortSignal): Promise<{ server: EphemeralServer; conn: MyConn }> {
  const found = findMyServer();
  if (!found) throw new RestoreError('no MariaDB/MySQL server binaries (mariadb-install-db and mariadbd, or mysqld)');
  const who = serverAccount('mysql', runAs);
  if (who.problem) throw new RestoreError(who.problem);
  const dir = await privateDir(who.account);
  try {
    const data = path.join(dir, 'data');
    const sock = path.join(dir, 'mysqld.sock');
    const asWho = who.account ? { uid: who.account.uid, gid: who.account.gid } : {};
    const init = found.install
      ? await run(found.install, ['--no-defaults', `--datadir=${data}`, '--auth-root-authentication-method=normal', '--skip-test-db', '--skip-name-resolve'], { env: serverEnv(who.account), cwd: dir, timeoutMs: 180_000, signal, ...asWho })
      : await run(found.server, ['--no-defaults', '--initialize-insecure', `--datadir=${data}`], { env: serverEnv(who.account), cwd: dir, timeoutMs: 180_000, signal, ...asWho });
    if (init.code !== 0) throw new RestoreError(`${path.basename(found.install ?? found.server)} failed: ${tail(init.stderr || init.stdout)}`);
    const server = await startServer({
      cmd: found.server,
      args: [
        '--no-defaults',
        `--datadir=${data}`,
        `--socket=${sock}`,
        '--skip-networking',
        `--pid-file=${path.join(dir, 'mysqld.pid')}`,
        '--innodb-flush-log-at-trx-commit=0',
        '--innodb-buffer-pool-size=64M',
        '--skip-log-bin',
        '--max-allowed-packet=1G',
      ],
      dir,
      account: who.account,
      ready: /ready for connections/,
      quitSignal: 'SIGKILL',
      stopSignal: 'SIGTERM',
      signal,
      name: path.basename(found.server),
    });
    return { server, conn: { args: [`--socket=${sock}`, '--user=root'], env: {}, secrets: [] } };
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
}
