// Process helpers any restore engine may use (src/restore/servers/: the
// helpers of engines that start or reach a server): find a server's binaries,
// run a client and capture what it says, resolve the unprivileged account an
// ephemeral server runs as, and keep passwords out of every message.
import { spawn, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { whenAborted } from '../../util/abort.js';

/** The first executable named `name` on PATH (the command's environment), then in `extra` folders. */
export function findBinary(name: string, extra: string[] = [], pathVar: string | undefined = DEFAULT_PATH): string | null {
  const dirs = [...(pathVar ?? '').split(path.delimiter).filter(Boolean), ...extra];
  for (const dir of dirs) {
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      /* next */
    }
  }
  return null;
}

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** /usr/lib/postgresql/<major>/bin folders, newest major first. */
export function postgresBinDirs(): string[] {
  try {
    return readdirSync('/usr/lib/postgresql')
      .filter((d) => /^\d+(\.\d+)?$/.test(d))
      .sort((a, b) => Number(b) - Number(a))
      .map((d) => `/usr/lib/postgresql/${d}/bin`);
  } catch {
    return [];
  }
}

export const SBIN_DIRS = ['/usr/sbin', '/usr/local/sbin', '/usr/local/mysql/bin', '/sbin'];

export interface Account {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/** A local account from /etc/passwd, or null. */
export function findAccount(name: string): Account | null {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const f = line.split(':');
      if (f[0] === name && f.length >= 7) return { name, uid: Number(f[2]), gid: Number(f[3]), home: f[5] ?? '/' };
    }
  } catch {
    /* no passwd */
  }
  return null;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run a program to its end, capturing its output (the last 256 kB of each). */
export function run(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; input?: string; uid?: number; gid?: number; cwd?: string; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const so: SpawnOptions = { env: opts.env ?? clientEnv({}), stdio: ['pipe', 'pipe', 'pipe'], cwd: opts.cwd };
    if (opts.uid !== undefined) so.uid = opts.uid;
    if (opts.gid !== undefined) so.gid = opts.gid;
    const child = spawn(cmd, args, so);
    let out = '';
    let err = '';
    const cap = 256 * 1024;
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.length > cap * 2) out = out.slice(-cap);
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      if (err.length > cap * 2) err = err.slice(-cap);
    });
    child.stdin!.on('error', () => {});
    child.stdin!.end(opts.input ?? '');
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : null;
    const onAbort = () => child.kill('SIGTERM');
    whenAborted(opts.signal, onAbort);
    child.on('error', (e) => {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      reject(e);
    });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve({ code, signal, stdout: out.slice(-cap), stderr: err.slice(-cap) });
    });
  });
}

/** Where binaries are looked for when the command's environment has no PATH. */
export const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

/**
 * The environment of a database client: its connection variables and nothing
 * else (issue 28 §2). Never ours: no BACKUPCTL_* (the token), no PGPASSWORD or
 * MYSQL_PWD of the user, no HOME (no ~/.psqlrc, ~/.my.cnf of whoever runs us).
 */
export function clientEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: DEFAULT_PATH, LANG: 'C', LC_ALL: 'C' };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

/** Replace each secret in a message by "***" (the password of --into never appears anywhere). */
export function redact(text: string, secrets: (string | undefined)[]): string {
  let s = text;
  for (const secret of secrets) {
    if (!secret) continue;
    s = s.split(secret).join('***');
    const enc = encodeURIComponent(secret);
    if (enc !== secret) s = s.split(enc).join('***');
  }
  return s;
}

/** A short random suffix for scratch databases and folders. */
export function randomName(): string {
  return randomBytes(5).toString('hex');
}
