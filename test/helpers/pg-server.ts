// A PostgreSQL a test starts itself as a privileged --into server: its superuser "postgres" with a password, on
// a Unix socket in a private folder, with whatever settings the test adds (max_prepared_transactions...).
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const PG_BIN = readdirSync('/usr/lib/postgresql')
  .sort((a, b) => Number(b) - Number(a))
  .map((v) => `/usr/lib/postgresql/${v}/bin`)[0]!;

function account(name: string): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const f = line.split(':');
    if (f[0] === name) return { uid: Number(f[2]), gid: Number(f[3]) };
  }
  throw new Error(`no ${name} account`);
}

export interface PgServer {
  dir: string;
  data: string;
  pid: number;
  /** postgres://postgres:<password>@/postgres?host=<dir>: the superuser, a privileged --into. */
  url: string;
  /** Run SQL as the superuser; its output, trimmed. */
  sql(text: string, db?: string): string;
  stop(): Promise<void>;
}

export async function startPgServer(settings: string[] = []): Promise<PgServer> {
  const who = account('postgres');
  const dir = mkdtempSync('/tmp/backupctl-test-pg-');
  chmodSync(dir, 0o700);
  if (who) chownSync(dir, who.uid, who.gid);
  const data = path.join(dir, 'data');
  const pw = path.join(dir, 'pw');
  writeFileSync(pw, 'superpw\n');
  if (who) chownSync(pw, who.uid, who.gid);
  const init = spawnSync(path.join(PG_BIN, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'scram-sha-256', `--pwfile=${pw}`, '-E', 'UTF8', '--no-locale', '-N'], { ...(who ?? {}), encoding: 'utf8' });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(init.stderr);
  }
  const args = ['-D', data, '-k', dir, '-c', 'listen_addresses=', '-F', ...settings.flatMap((s) => ['-c', s])];
  const child = spawn(path.join(PG_BIN, 'postgres'), args, { stdio: ['ignore', 'pipe', 'pipe'], ...(who ?? {}) });
  await new Promise<void>((resolve, reject) => {
    let log = '';
    const on = (d: Buffer) => {
      log += d.toString();
      if (/ready to accept connections/.test(log)) resolve();
    };
    child.stdout!.on('data', on);
    child.stderr!.on('data', on);
    child.on('exit', (c) => {
      rmSync(dir, { recursive: true, force: true });
      reject(new Error(`postgres exited ${c}: ${log}`));
    });
  });
  child.stdout!.resume();
  child.stderr!.resume();
  const sql = (text: string, db = 'postgres') => {
    const r = spawnSync(path.join(PG_BIN, 'psql'), ['-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-d', db, '-c', text], { env: { PATH: process.env.PATH, PGHOST: dir, PGUSER: 'postgres', PGPASSWORD: 'superpw' }, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    return r.stdout.trim();
  };
  return {
    dir,
    data,
    pid: child.pid!,
    url: `postgres://postgres:superpw@/postgres?host=${dir}`,
    sql,
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
