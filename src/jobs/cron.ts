// What a cron entry needs around `jobs backup start`: a lock so two runs of
// the same entry never overlap, jitter so a fleet does not start at once, and
// healthchecks.io-style pings that never change the exit code.
import { open, readFile, unlink } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { CliError, LockedError, UsageError } from '../errors.js';
import { abortableSleep } from '../http/retry.js';

export interface RunLock {
  release(): Promise<void>;
}

/**
 * Takes `file` as a lock holding our pid. Held by a live process: LockedError
 * (exit 10). Held by a dead one (or unreadable): stale, taken over.
 */
export async function acquireRunLock(file: string): Promise<RunLock> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fh = await open(file, 'wx', 0o644);
      await fh.writeFile(JSON.stringify({ pid: process.pid, started_at: new Date().toISOString() }));
      await fh.close();
      let released = false;
      const release = async () => {
        if (released) return;
        released = true;
        // Remove it only if it is still ours.
        const holder = await readHolder(file);
        if (holder?.pid === process.pid) await unlink(file).catch(() => {});
      };
      return { release };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') {
        throw new UsageError(`cannot create the lock file ${file} (${code})`);
      }
      if (code !== 'EEXIST') throw err;
      const holder = await readHolder(file);
      if (holder && isAlive(holder.pid)) {
        throw new LockedError(`another run holds the lock ${file} (pid ${holder.pid}, since ${holder.started_at ?? 'unknown'})`);
      }
      // Stale: its process is gone. Remove it and try once more; if another
      // process takes it between the two steps, the second open fails and we say so.
      await unlink(file).catch(() => {});
    }
  }
  throw new LockedError(`another run took the lock ${file} just now`);
}

async function readHolder(file: string): Promise<{ pid: number; started_at?: string } | undefined> {
  try {
    const data = JSON.parse(await readFile(file, 'utf8')) as { pid?: unknown; started_at?: string };
    return typeof data.pid === 'number' ? { pid: data.pid, started_at: data.started_at } : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface CronGuards {
  lock?: string;
  jitterMs?: number;
  healthcheckUrl?: string;
}

/** --lock, --jitter and --healthcheck-url of a command (cronParams), checked before anything runs. */
export function cronGuards(values: Record<string, unknown>): CronGuards {
  const healthcheckUrl = typeof values.healthcheck_url === 'string' ? values.healthcheck_url : undefined;
  if (healthcheckUrl && !/^https?:\/\//.test(healthcheckUrl)) {
    throw new UsageError(`invalid value for --healthcheck-url: must be an http(s) URL`);
  }
  return {
    lock: typeof values.lock === 'string' ? values.lock : undefined,
    jitterMs: typeof values.jitter === 'number' && values.jitter > 0 ? values.jitter : undefined,
    healthcheckUrl,
  };
}

/**
 * Runs `work` as a crontab line wants it: holding the lock, after the jitter,
 * between a /start ping and a success or /fail ping (with the exit code and
 * message). The pings never change the outcome.
 */
export async function runForCron<T>(guards: CronGuards, ctx: { signal: AbortSignal; io: { stderr: Writable } }, work: () => Promise<T>): Promise<T> {
  const lock = guards.lock ? await acquireRunLock(guards.lock) : undefined;
  const stderr = ctx.io.stderr;
  try {
    if (guards.jitterMs) await jitter(guards.jitterMs, ctx.signal, stderr);
    const url = guards.healthcheckUrl;
    if (url) await pingHealthcheck(url, 'start', { stderr });
    let result: T;
    try {
      result = await work();
    } catch (err) {
      if (url) {
        const code = err instanceof CliError ? err.exitCode : 1;
        await pingHealthcheck(url, 'fail', { stderr, body: `exit ${code}: ${(err as Error).message}` });
      }
      throw err;
    }
    if (url) await pingHealthcheck(url, 'success', { stderr });
    return result;
  } finally {
    await lock?.release();
  }
}

/** Sleeps a random time in [0, maxMs) and says so on stderr. */
export async function jitter(maxMs: number, signal: AbortSignal, stderr: Writable, random = Math.random): Promise<number> {
  const ms = Math.floor(random() * maxMs);
  if (ms > 0) {
    stderr.write(`Waiting ${formatDuration(ms)} (--jitter) before starting.\n`);
    await abortableSleep(ms, signal);
  }
  return ms;
}

/**
 * Pings a healthchecks.io-style URL: `<url>/start`, `<url>` on success,
 * `<url>/fail` on failure. A short timeout; failures are a warning, never an error.
 */
export async function pingHealthcheck(
  url: string,
  kind: 'start' | 'success' | 'fail',
  o: { stderr: Writable; timeoutMs?: number; body?: string },
): Promise<boolean> {
  const target = kind === 'success' ? url : `${url.replace(/\/+$/, '')}/${kind}`;
  try {
    const { EnvHttpProxyAgent } = await import('../http/undici.js');
    const dispatcher = new EnvHttpProxyAgent();
    const u = new URL(target);
    try {
      const res = await (dispatcher as unknown as import('../http/undici.js').Dispatcher).request({
        origin: u.origin,
        path: u.pathname + u.search,
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'user-agent': 'backupctl' },
        body: o.body ?? '',
        signal: AbortSignal.timeout(o.timeoutMs ?? 10_000),
      });
      await res.body.dump();
      if (res.statusCode >= 400) throw new Error(`answered ${res.statusCode}`);
      return true;
    } finally {
      await dispatcher.close().catch(() => {});
    }
  } catch (err) {
    o.stderr.write(`warning: healthcheck ping to ${redactUrl(target)} failed: ${(err as Error).message}\n`);
    return false;
  }
}

/** Shows a ping URL without its path (the UUID in it is a credential of sorts). */
function redactUrl(u: string): string {
  try {
    const p = new URL(u);
    return `${p.origin}/…`;
  } catch {
    return 'the healthcheck URL';
  }
}

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${s % 60 ? `${s % 60}s` : ''}`;
  const h = Math.floor(m / 60);
  return `${h}h${m % 60 ? `${m % 60}m` : ''}`;
}
