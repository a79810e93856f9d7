// Restore-test helpers: the fixtures of src/emulator/fixtures/restore (made
// by src/scripts/make-restore-fixtures.mjs with the real pg_dump and
// mariadb-dump), a file streamed into a restore sink in small chunks as the
// transfer would, and private servers a test starts itself for --into.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { chmodSync, chownSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './cli.js';
import type { FileRestore, RestoreOptions, RestoreSink } from '../../src/restore/types.js';
import type { ContentSink } from '../../src/pipeline/types.js';
import { ContentStage } from '../../src/pipeline/content/stage.js';

export const FIXTURES = path.join(ROOT, 'src/emulator/fixtures/restore');

export interface FixtureMeta {
  kind: string;
  tables?: Record<string, number>;
  error_line?: number;
  error?: string;
  short_table?: string;
  restored_rows?: number;
}

export const manifest = JSON.parse(readFileSync(path.join(FIXTURES, 'manifest.json'), 'utf8')) as { files: Record<string, FixtureMeta> };

export function fixture(name: string): Buffer {
  return readFileSync(path.join(FIXTURES, name));
}

export function options(extra: Partial<RestoreOptions> = {}): RestoreOptions {
  return { engine: 'auto', asserts: [], execTimeoutMs: 10_000, keep: false, allowEmpty: false, signal: new AbortController().signal, ...extra };
}

/**
 * The bytes into the sink in 8 kB chunks, as the read pipeline hands them over. A content sink (restore-test's
 * DispatchSink) sits under the real content stage (src/pipeline/content/stage.ts), as in restore-test: open() with the
 * kind the one sniffer names, the decoded bytes (a gzip inflated once) and a SQL dump's statements, read once.
 */
export async function feed(sink: RestoreSink | ContentSink<FileRestore>, bytes: Buffer, chunk = 8192): Promise<FileRestore> {
  if ('open' in sink && typeof sink.open === 'function') {
    const stage = new ContentStage({}, [sink]);
    for (let i = 0; i < bytes.length; i += chunk) await stage.write(bytes.subarray(i, i + chunk));
    await stage.end();
    if (stage.failed.has(0)) throw stage.failed.get(0);
    return sink.end();
  }
  for (let i = 0; i < bytes.length; i += chunk) await sink.write(bytes.subarray(i, i + chunk));
  return sink.end();
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function account(name: string): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const f = line.split(':');
    if (f[0] === name) return { uid: Number(f[2]), gid: Number(f[3]) };
  }
  throw new Error(`no ${name} account`);
}

function privateDir(who: { uid: number; gid: number } | null): string {
  const dir = mkdtempSync('/tmp/backupctl-test-server-');
  chmodSync(dir, 0o700);
  if (who) chownSync(dir, who.uid, who.gid);
  return dir;
}

function waitFor(child: ChildProcess, ready: RegExp): Promise<void> {
  let log = '';
  return new Promise((resolve, reject) => {
    const on = (d: Buffer) => {
      log += d.toString();
      if (ready.test(log)) resolve();
    };
    child.stdout!.on('data', on);
    child.stderr!.on('data', on);
    child.on('exit', (c) => reject(new Error(`server exited ${c}: ${log}`)));
  });
}

/** A server that did not start leaves no folder behind (it has exited: nothing else to stop). */
function removeAndThrow(dir: string, err: unknown): never {
  rmSync(dir, { recursive: true, force: true });
  throw err;
}

export interface TestServer {
  dir: string;
  url: string;
  pid: number;
  /** The TCP port on 127.0.0.1, when started with { tcp: true }. */
  port?: number;
  /** Run SQL as the server's superuser; stdout. */
  admin(sql: string): string;
  stop(): Promise<void>;
}

/** A TCP port on 127.0.0.1 that was free a moment ago (the kernel's pick). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** How a test server listens: its Unix socket always; with tcp, 127.0.0.1 on a free port too. */
export interface TestServerOptions {
  tcp?: boolean;
  /** More server options (mariadbd: --event-scheduler=ON). */
  args?: string[];
}

// The servers below are thrown away after their file: no fsync, no full-page writes, no doublewrite
// (what the ephemeral servers of src/restore/sql do too): a CREATE or DROP DATABASE's checkpoint does
// not wait for the disk of a loaded machine.

/** A PostgreSQL the test starts itself: password authentication on a Unix socket, a user "tester" with CREATEDB. */
export async function startTestPostgres(password: string, opts: TestServerOptions = {}): Promise<TestServer> {
  const who = account('postgres');
  const dir = privateDir(who);
  const bin = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)).map((v) => `/usr/lib/postgresql/${v}/bin`)[0]!;
  const pw = path.join(dir, 'pw');
  writeFileSync(pw, 'superpw\n');
  if (who) chownSync(pw, who.uid, who.gid);
  const init = spawnSync(path.join(bin, 'initdb'), ['-D', path.join(dir, 'data'), '-U', 'postgres', '-A', 'scram-sha-256', `--pwfile=${pw}`, '-E', 'UTF8', '--no-locale', '-N'], { ...(who ?? {}), encoding: 'utf8' });
  if (init.status !== 0) removeAndThrow(dir, new Error(init.stderr));
  const port = opts.tcp ? await freePort() : undefined;
  const listen = port ? ['-c', 'listen_addresses=127.0.0.1', '-p', String(port)] : ['-c', 'listen_addresses='];
  const child = spawn(path.join(bin, 'postgres'), ['-D', path.join(dir, 'data'), '-k', dir, ...listen, '-F', '-c', 'full_page_writes=off', '-c', 'synchronous_commit=off', ...(opts.args ?? [])], { stdio: ['ignore', 'pipe', 'pipe'], ...(who ?? {}) });
  await waitFor(child, /ready to accept connections/).catch((e: unknown) => removeAndThrow(dir, e));
  const admin = (sql: string) => {
    const r = spawnSync('psql', ['-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-d', 'postgres', '-c', sql], { env: { ...process.env, PGHOST: dir, PGUSER: 'postgres', PGPASSWORD: 'superpw', ...(port ? { PGPORT: String(port) } : {}) }, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    return r.stdout;
  };
  admin(`CREATE ROLE tester LOGIN CREATEDB PASSWORD '${password}'`);
  return {
    dir,
    pid: child.pid!,
    port,
    url: `postgres://tester:${encodeURIComponent(password)}@/postgres?host=${dir}${port ? `&port=${port}` : ''}`,
    admin,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGINT');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A MariaDB the test starts itself: a user "tester" with a password, on a Unix socket (and 127.0.0.1 with tcp). */
export async function startTestMariadb(password: string, opts: TestServerOptions = {}): Promise<TestServer> {
  const who = account('mysql');
  const dir = privateDir(who);
  const init = spawnSync('/usr/bin/mariadb-install-db', ['--no-defaults', `--datadir=${path.join(dir, 'data')}`, '--auth-root-authentication-method=normal', '--skip-test-db'], { ...(who ?? {}), encoding: 'utf8' });
  if (init.status !== 0) removeAndThrow(dir, new Error(init.stderr));
  const sock = path.join(dir, 'sock');
  const server = existsSync('/usr/sbin/mariadbd') ? '/usr/sbin/mariadbd' : 'mariadbd';
  const port = opts.tcp ? await freePort() : undefined;
  const listen = port ? [`--port=${port}`, '--bind-address=127.0.0.1', '--skip-name-resolve'] : ['--skip-networking'];
  const child = spawn(server, ['--no-defaults', `--datadir=${path.join(dir, 'data')}`, `--socket=${sock}`, ...listen, `--pid-file=${path.join(dir, 'pid')}`, '--skip-log-bin', '--innodb-flush-log-at-trx-commit=0', '--innodb-doublewrite=0', ...(opts.args ?? [])], { stdio: ['ignore', 'pipe', 'pipe'], ...(who ?? {}) });
  await waitFor(child, /ready for connections/).catch((e: unknown) => removeAndThrow(dir, e));
  const admin = (sql: string) => {
    const r = spawnSync('mariadb', ['--no-defaults', `--socket=${sock}`, '--user=root', '--batch', '--skip-column-names'], { input: sql, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    return r.stdout;
  };
  admin(`CREATE USER tester@localhost IDENTIFIED BY '${password}'; GRANT ALL ON \`backupctl\\_restore\\_%\`.* TO tester@localhost;`);
  return {
    dir,
    pid: child.pid!,
    port,
    url: `mysql://tester:${encodeURIComponent(password)}@localhost/?socket=${sock}`,
    admin,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
