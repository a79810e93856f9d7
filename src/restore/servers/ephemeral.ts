// Ephemeral local servers (issue 24 §2, the placement "local"), for any
// restore engine that starts a server of its own (src/restore/servers/): a private temporary
// folder (0700), the server started in it as an unprivileged account when we
// are root, a Unix socket only, and on stop (or abort, or the process
// exiting) the server killed and the folder removed.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { chmod, chown, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findAccount, type Account } from './proc.js';
import { whenAborted } from '../../util/abort.js';

export interface EphemeralServer {
  /** The private folder: data, socket and logs. */
  dir: string;
  pid: number;
  account: Account | null;
  /** Stop the server (gracefully, or at once with `now`: Ctrl-C, SIGTERM), then SIGKILL, and remove the folder. Idempotent. */
  stop(now?: boolean): Promise<void>;
}

const live = new Map<number, { dir: string; child: ChildProcess; quit: NodeJS.Signals; guardian: ChildProcess | null }>();

/** The name of the file in a server's folder that says which backupctl started it (pid and start time). */
const OWNER_FILE = 'backupctl-owner';

/** A process's start time (clock ticks since boot, /proc/<pid>/stat field 22): a pid reused later has another. */
export function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/**
 * A small guardian (sh, in its own process group, so Ctrl-C does not reach
 * it): when backupctl is gone (SIGKILL, a crash) while the server still runs,
 * it stops the server at once and removes its folder, within about a second.
 * stop() ends it first.
 */
function startGuardian(server: number, dir: string, quit: NodeJS.Signals): ChildProcess | null {
  const script =
    'while kill -0 "$OWNER" 2>/dev/null && kill -0 "$SERVER" 2>/dev/null; do sleep 0.3; done\n' +
    'if kill -0 "$SERVER" 2>/dev/null; then kill -"$QUIT" "$SERVER" 2>/dev/null; i=0; while kill -0 "$SERVER" 2>/dev/null && [ $i -lt 10 ]; do sleep 0.2; i=$((i+1)); done; kill -KILL "$SERVER" 2>/dev/null; fi\n' +
    'case "$DIR" in */backupctl-restore-*) rm -rf -- "$DIR" ;; esac\n';
  try {
    const g = spawn('/bin/sh', ['-c', script], {
      detached: true,
      stdio: 'ignore',
      env: { PATH: '/usr/bin:/bin', OWNER: String(process.pid), SERVER: String(server), DIR: dir, QUIT: quit.replace(/^SIG/, '') },
    });
    g.on('error', () => {});
    g.unref();
    return g;
  } catch {
    return null;
  }
}

/**
 * Folders of ephemeral servers whose backupctl is gone (killed before it
 * could clean up, and its guardian too): their server stopped, the folder
 * removed. One line per folder, for the warnings.
 */
export async function sweepOrphans(): Promise<string[]> {
  const out: string[] = [];
  for (const base of new Set([tmpdir(), '/tmp'])) {
    let names: string[];
    try {
      names = (await readdir(base)).filter((n) => n.startsWith('backupctl-restore-'));
    } catch {
      continue;
    }
    for (const name of names) {
      const dir = path.join(base, name);
      let owner: { pid: number; start: string | null };
      try {
        const [pid, start] = (await readFile(path.join(dir, OWNER_FILE), 'utf8')).trim().split(/\s+/);
        owner = { pid: Number(pid), start: start ?? null };
      } catch {
        continue;
      }
      if (!Number.isInteger(owner.pid) || owner.pid <= 0) continue;
      if (alive(owner.pid) && (owner.start === null || startTime(owner.pid) === owner.start)) continue;
      // The server's pid: postgres's postmaster.pid, mariadbd's pid file.
      let server: number | null = null;
      for (const f of ['data/postmaster.pid', 'mysqld.pid']) {
        try {
          const pid = Number((await readFile(path.join(dir, f), 'utf8')).split('\n')[0]);
          if (Number.isInteger(pid) && pid > 0) server = pid;
        } catch {
          /* not this one */
        }
      }
      let stopped = false;
      if (server !== null && alive(server)) {
        let cmdline = '';
        try {
          cmdline = readFileSync(`/proc/${server}/cmdline`, 'utf8');
        } catch {
          /* gone */
        }
        if (cmdline.includes(dir)) {
          try {
            process.kill(server, 'SIGKILL');
            stopped = true;
          } catch {
            /* gone */
          }
        }
      }
      await rm(dir, { recursive: true, force: true }).catch(() => {});
      out.push(`${stopped ? `stopped an orphaned ephemeral server (pid ${server}) and removed` : 'removed the folder of'} ${dir}: the backupctl that started it (pid ${owner.pid}) is gone`);
    }
  }
  return out;
}
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
      try {
        v.guardian?.kill('SIGKILL');
      } catch {
        /* gone */
      }
      const until = Date.now() + 1000;
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
  await writeFile(path.join(dir, OWNER_FILE), `${process.pid} ${startTime(process.pid) ?? ''}\n`, { mode: 0o644 });
  if (account) await chown(dir, account.uid, account.gid);
  return dir;
}

export function serverEnv(account: Account | null): NodeJS.ProcessEnv {
  return { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C', LC_ALL: 'C', HOME: account?.home ?? '/' };
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
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const guardian = child.pid !== undefined ? startGuardian(child.pid, opts.dir, opts.quitSignal) : null;
  if (child.pid !== undefined) live.set(child.pid, { dir: opts.dir, child, quit: opts.quitSignal, guardian });
  let stopping: Promise<void> | null = null;
  const server: EphemeralServer = {
    dir: opts.dir,
    pid: child.pid ?? -1,
    account: opts.account,
    stop(now = false) {
      if (stopping) {
        // Already stopping gracefully, and now in a hurry: the immediate shutdown.
        if (now && child.exitCode === null && child.signalCode === null) child.kill(opts.quitSignal);
        return stopping;
      }
      stopping = doStop(now);
      return stopping;
    },
  };
  const doStop = async (now: boolean) => {
      guardian?.kill('SIGKILL');
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(now ? opts.quitSignal : opts.stopSignal);
        const t = setTimeout(() => child.kill('SIGKILL'), now ? 700 : 10_000);
        await exited;
        clearTimeout(t);
      }
      if (child.pid !== undefined) live.delete(child.pid);
      await rm(opts.dir, { recursive: true, force: true });
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
      const onExit = () => done(new Error(`${opts.name} exited while starting: ${tail(log)}`));
      child.on('close', onExit);
      child.on('error', (e) => done(e));
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      // Last: an aborted signal calls done() at once, which needs onExit.
      whenAborted(opts.signal, onAbort);
      function done(e: Error | null) {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        child.off('close', onExit);
        if (e) reject(e);
        else resolve();
      }
    });
  } catch (e) {
    await server.stop(true);
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
