// Ephemeral local servers (issue 24 §2, engine "local"): a private temporary
// folder (0700), the server started in it as an unprivileged account when we
// are root, a Unix socket only, and on stop (or abort, or the process
// exiting) the server killed and the folder removed.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findAccount, type Account } from './proc.js';

export interface EphemeralServer {
  /** The private folder: data, socket and logs. */
  dir: string;
  pid: number;
  account: Account | null;
  /** Stop the server (gracefully, then SIGKILL) and remove the folder. Idempotent. */
  stop(): Promise<void>;
}

const live = new Map<number, { dir: string; child: ChildProcess; quit: NodeJS.Signals }>();
let exitHook = false;

/** Folders made for a server (privateDir), from before its first process starts until they are removed. */
const made = new Set<string>();

/**
 * The servers running now, with their folders, and the folders of servers still being set up
 * (pid -1): for tests that check nothing is left behind, whatever else runs on the machine.
 */
export function activeEphemeralServers(): { pid: number; dir: string }[] {
  const running = [...live.entries()].map(([pid, v]) => ({ pid, dir: v.dir }));
  for (const dir of made) if (!existsSync(dir)) made.delete(dir);
  const setting = [...made].filter((dir) => !running.some((s) => s.dir === dir)).map((dir) => ({ pid: -1, dir }));
  return [...running, ...setting];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function hookExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.on('exit', () => {
    // The command's abort() is the way out; this is the last resort (an exit nobody awaited):
    // an immediate shutdown, a short wait for the process (its children write until it is gone), then the folder.
    for (const [pid, v] of live) {
      try {
        process.kill(pid, v.quit);
      } catch {
        /* gone */
      }
      const until = Date.now() + 3000;
      while (Date.now() < until && alive(pid)) {
        /* a synchronous wait: nothing else runs at exit */
      }
      if (alive(pid)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      try {
        rmSync(v.dir, { recursive: true, force: true });
      } catch {
        /* best effort */
      }
    }
  });
}

/**
 * The account an ephemeral server runs as: ourselves unless we are root; as
 * root the named one (--run-as), else the product's own account.
 */
export function serverAccount(defaultName: string, runAs: string | undefined): { account: Account | null; problem?: string } {
  const uid = typeof process.getuid === 'function' ? process.getuid() : -1;
  if (uid !== 0) {
    if (runAs) return { account: null, problem: `--run-as ${runAs} needs root; the server runs as the current user` };
    return { account: null };
  }
  const name = runAs ?? defaultName;
  const account = findAccount(name);
  if (!account) return { account: null, problem: runAs ? `no account named ${runAs} (--run-as)` : `running as root, and there is no ${defaultName} account to run the server as: give --run-as USER` };
  if (account.uid === 0) return { account: null, problem: `--run-as ${name} is root; the server must run as an unprivileged account` };
  return { account };
}

/** A private 0700 folder, owned by the account the server runs as. */
export async function privateDir(account: Account | null): Promise<string> {
  const base = account ? '/tmp' : tmpdir();
  const dir = await mkdtemp(path.join(base, 'backupctl-restore-'));
  made.add(dir);
  await chmod(dir, 0o700);
  if (account) await chown(dir, account.uid, account.gid);
  return dir;
}

export function serverEnv(account: Account | null): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C', LC_ALL: 'C', HOME: account?.home ?? process.env.HOME ?? '/' };
}

/**
 * Start a server process; resolves once a line of its output matches `ready`.
 * Rejects with the tail of its output when it exits first or takes too long.
 */
export async function startServer(opts: {
  cmd: string;
  args: string[];
  dir: string;
  account: Account | null;
  ready: RegExp;
  stopSignal: NodeJS.Signals;
  /** The signal of an immediate shutdown (postgres: SIGQUIT), for the exit hook. */
  quitSignal: NodeJS.Signals;
  timeoutMs?: number;
  signal?: AbortSignal;
  name: string;
}): Promise<EphemeralServer> {
  hookExit();
  const child = spawn(opts.cmd, opts.args, {
    env: serverEnv(opts.account),
    cwd: opts.dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(opts.account ? { uid: opts.account.uid, gid: opts.account.gid } : {}),
  });
  let log = '';
  let stopped = false;
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  if (child.pid !== undefined) live.set(child.pid, { dir: opts.dir, child, quit: opts.quitSignal });
  const server: EphemeralServer = {
    dir: opts.dir,
    pid: child.pid ?? -1,
    account: opts.account,
    async stop() {
      if (stopped) return exited;
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(opts.stopSignal);
        const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(t);
      }
      if (child.pid !== undefined) live.delete(child.pid);
      await rm(opts.dir, { recursive: true, force: true });
    },
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const onData = (d: Buffer) => {
        log += d.toString('utf8');
        if (log.length > 64 * 1024) log = log.slice(-32 * 1024);
        if (opts.ready.test(log)) done(null);
      };
      const timer = setTimeout(() => done(new Error(`${opts.name} did not start within ${Math.round((opts.timeoutMs ?? 60_000) / 1000)} s`)), opts.timeoutMs ?? 60_000);
      const onAbort = () => done(new Error('aborted'));
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      const onExit = () => done(new Error(`${opts.name} exited while starting: ${tail(log)}`));
      child.on('close', onExit);
      child.on('error', (e) => done(e));
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      function done(e: Error | null) {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        child.off('close', onExit);
        if (e) reject(e);
        else resolve();
      }
    });
  } catch (e) {
    await server.stop();
    throw e;
  }
  // Keep draining its output so the server never blocks on a full pipe.
  child.stdout!.resume();
  child.stderr!.resume();
  return server;
}

export function tail(text: string, lines = 6): string {
  return text.trim().split('\n').slice(-lines).join(' | ');
}
