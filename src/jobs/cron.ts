// What a cron entry needs around `jobs backup start`: a lock so two runs of
// the same entry never overlap, jitter so a fleet does not start at once, and
// healthchecks.io-style pings that never change the exit code.
// fs.promises, not node:fs/promises (as in config/store.ts): every `jobs` command loads this
// module through the jobs resource, and that module costs ~1 ms of CPU to load; only a lock needs it.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import type { Context, Result } from '../contract/context.js';
import type { ParamSpec } from '../contract/spec.js';
import { CliError, LockedError, UsageError } from '../errors.js';
import { abortableSleep } from '../http/retry.js';
import { acquireFileLock, type HeldLock } from '../config/lock.js';
import { stateDir } from '../config/paths.js';
import { writeServiceLine } from '../output/sanitize.js';

export type RunLock = HeldLock;

/** The flags every cron-minded command takes: `...cronParams` in its params. */
export const cronParams: ParamSpec[] = [
  { name: 'jitter', in: 'local', type: 'duration', placeholder: 'duration', description: 'Sleep a random time up to this long first, so a fleet does not start at once' },
  {
    name: 'lock',
    in: 'local',
    type: 'string',
    placeholder: 'name|file',
    description: 'Hold this lock while running; another run holding it: exit 10 (a bare name lives in ~/.local/state/backupctl)',
  },
  { name: 'healthcheck_url', in: 'local', type: 'string', placeholder: 'url', description: 'Ping <url>/start, then <url> on success or <url>/fail on failure (healthchecks.io)' },
];

/**
 * Where `--lock <value>` lives: a value with a slash is a path; a bare name is
 * `<name>.lock` (unless it ends so already) in the per-user state folder, created 0700.
 */
export async function runLockPath(value: string, env: NodeJS.ProcessEnv): Promise<string> {
  if (value.includes('/') || value.includes(path.sep)) return path.resolve(value);
  checkCronFlags({ lock: value });
  const dir = stateDir(env);
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  return path.join(dir, value.endsWith('.lock') ? value : `${value}.lock`);
}

/**
 * The cron helper's flags as given: --lock's name and --healthcheck-url's scheme (exit 2). A handler's
 * check calls it before anything is sent; runCronJob again.
 */
export function checkCronFlags(values: Record<string, unknown>): void {
  const lock = values.lock;
  if (typeof lock === 'string' && !lock.includes('/') && !lock.includes(path.sep) && (lock === '.' || lock === '..' || !lock.trim())) {
    throw new UsageError(`invalid value for --lock: ${JSON.stringify(lock)} (a name or a file path)`);
  }
  const healthcheck = values.healthcheck_url;
  if (typeof healthcheck === 'string' && healthcheck && !/^https?:\/\//.test(healthcheck)) throw new UsageError(`invalid value for --healthcheck-url: must be an http(s) URL`);
}

/**
 * Takes `file` as the run lock (src/config/lock.ts, the project's one lock):
 * held by a live process, LockedError (exit 10) at once; left by a dead one
 * (or by a process whose pid has since been reused), taken over. Of many runs
 * started together, exactly one gets it.
 */
export async function acquireRunLock(file: string): Promise<RunLock> {
  return acquireFileLock(file, {
    waitMs: 0,
    staleMs: Infinity,
    cannotCreate: (err) => new UsageError(`cannot create the lock file ${file} (${(err as NodeJS.ErrnoException).code ?? err.message})`),
    busy: (holder) =>
      new LockedError(`another run holds the lock ${file} (${holder.pid ? `pid ${holder.pid}, ` : ''}since ${holder.since.toISOString()})`),
  });
}

/**
 * Runs `action` the way a cron entry needs it, from the values of cronParams:
 * the lock first, then the jitter, then the healthcheck pings around the action
 * (/start, then the URL or /fail with the exit code). A run turned away by the
 * lock (exit 10) pings /fail too: the monitor must hear that the night's run did
 * not happen. Dry runs skip all of it.
 */
export async function runCronJob(
  values: Record<string, unknown>,
  ctx: Pick<Context, 'signal' | 'io' | 'env' | 'globals'>,
  action: () => Promise<Result>,
): Promise<Result> {
  checkCronFlags(values);
  const healthcheck = typeof values.healthcheck_url === 'string' ? values.healthcheck_url : undefined;
  if (ctx.globals.dryRun) return action();
  const stderr = ctx.io.stderr;
  const fail = async (err: unknown) => {
    if (!healthcheck) return;
    const code = err instanceof CliError ? err.exitCode : 1;
    await pingHealthcheck(healthcheck, 'fail', { stderr, body: `exit ${code}: ${(err as Error).message}` });
  };
  let lock: RunLock | undefined;
  if (typeof values.lock === 'string') {
    try {
      lock = await acquireRunLock(await runLockPath(values.lock, ctx.env));
    } catch (err) {
      if (err instanceof LockedError) await fail(err);
      throw err;
    }
  }
  try {
    if (typeof values.jitter === 'number' && values.jitter > 0) await jitter(values.jitter, ctx.signal, stderr);
    if (healthcheck) await pingHealthcheck(healthcheck, 'start', { stderr });
    let result: Result;
    try {
      result = await action();
    } catch (err) {
      await fail(err);
      throw err;
    }
    if (healthcheck) await pingHealthcheck(healthcheck, 'success', { stderr });
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
    writeServiceLine(o.stderr, `warning: healthcheck ping to ${redactUrl(target)} failed: ${(err as Error).message}`);
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
