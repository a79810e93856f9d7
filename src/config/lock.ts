// The one lock-file implementation of the project. Two users: the config's
// read-modify-write (conf has no locking, and two `backupctl` processes that both
// read, change and write the file would otherwise lose one of the changes), and
// the run lock of cron commands (`--lock`, src/jobs/cron.ts), which must let
// exactly one of many concurrent runs through.
import { closeSync, fstatSync, linkSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { ConfigError } from '../errors.js';

let randomBytes: typeof import('node:crypto').randomBytes | undefined;

/** Eight hex digits for a private file name; withFileLock loads node:crypto first. */
function randomSuffix(): string {
  return randomBytes!(4).toString('hex');
}

export interface LockOptions {
  /** How long to wait for another process to release the lock (0: not at all). */
  waitMs?: number;
  /**
   * A lock older than this is left over by a hung or killed process. Infinity
   * for a lock held as long as its holder lives (a run lock); a lock whose
   * holder cannot be read (empty, garbage) is still stale after 10 s.
   */
  staleMs?: number;
}

export interface HeldLock {
  release(): Promise<void>;
}

/** What stands in the lock file, for the caller's "held by" message. */
export interface LockHolder {
  pid: number | undefined;
  /** When the lock was taken (the file's mtime). */
  since: Date;
}

// 15 s: twenty config writers at once on a loaded two-core machine queued past 5 s (seen in the suite at load 21).
const DEFAULT_WAIT_MS = 15_000;
const DEFAULT_STALE_MS = 10_000;

interface LockInfo {
  pid: number | undefined;
  /** The holder's start time in clock ticks since boot (Linux), to tell a reused pid apart. */
  started: number | undefined;
  ino: number;
  mtimeMs: number;
}

/** A lock that names no pid (empty: its owner has not written it yet; or garbage) is stale after this. */
const UNREADABLE_STALE_MS = 10_000;

function readLock(lockPath: string): LockInfo | undefined {
  try {
    const st = statSync(lockPath);
    const text = readFileSync(lockPath, 'utf8').trim();
    // `<pid> <start ticks>`; a bare pid (older versions, systems without /proc); or the JSON
    // `{"pid":…}` earlier run locks wrote.
    let m = /^(\d+)(?:\s+(\d+))?$/.exec(text);
    if (!m) m = /^\{.*"pid"\s*:\s*(\d+)/s.exec(text);
    const pid = m ? Number(m[1]) : undefined;
    const started = m?.[2] !== undefined ? Number(m[2]) : undefined;
    return { pid, started, ino: st.ino, mtimeMs: st.mtimeMs };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * The start time of a process in clock ticks since boot (field 22 of
 * /proc/<pid>/stat), or undefined where there is no /proc. A pid is reused
 * after its process dies; its start time is not.
 */
function processStartTicks(pid: number | 'self'): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return Number.isSafeInteger(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

let ownStart: number | undefined | null = null;
function ownStartTicks(): number | undefined {
  if (ownStart === null) ownStart = processStartTicks('self');
  return ownStart;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The file system's clock: the mtime of a file written last (each attempt to take the lock
 * writes one). Lock ages compare file times with file times: a file server whose clock
 * differs from ours (or a process under faketime, whose files the kernel still dates by the
 * real clock) made a live lock look months old, or a dead one young for ever.
 */
let fsNow: { mtimeMs: number; at: number } | undefined;
function fileClock(): number {
  return fsNow === undefined ? Date.now() : fsNow.mtimeMs + (Date.now() - fsNow.at);
}

function isStale(info: LockInfo, staleMs: number): boolean {
  const age = fileClock() - info.mtimeMs;
  if (age > staleMs) return true;
  if (info.pid === undefined) return age > UNREADABLE_STALE_MS;
  if (info.pid === process.pid) return info.started !== undefined && info.started !== ownStartTicks();
  if (!processAlive(info.pid)) return true;
  // Alive, but is it the process that took the lock, or a later one given the same pid?
  if (info.started === undefined) return false;
  const now = processStartTicks(info.pid);
  return now !== undefined && now !== info.started;
}

/**
 * Removes a stale lock. Returns true when the lock is gone or was replaced (so
 * acquiring may be retried at once), false when another process is removing it.
 * Only the holder of `<lock>.break` (created with O_EXCL) may remove a lock, and
 * it removes it only if the lock is still the very file judged stale (same
 * inode). A lock is never replaced in place (link(2) fails on an existing
 * name), so between that check and the unlink nobody can put another lock there.
 * (Renaming the lock aside and linking it back when it was not the stale one let
 * a third process create a lock in between: two holders at once.)
 */
function removeStaleLock(lockPath: string, info: LockInfo, staleMs: number): boolean {
  const breaker = `${lockPath}.break`;
  try {
    closeSync(openSync(breaker, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Another process is removing it now. A breaker left by a killed process goes after a while.
    try {
      if (fileClock() - statSync(breaker).mtimeMs > UNREADABLE_STALE_MS) unlinkSync(breaker);
    } catch {
      // Gone already.
    }
    return false;
  }
  try {
    // Judge the file there now, not only its inode: a lock removed by another breaker frees its
    // inode number, and the next process's new (live) lock may get the same number (ext4 reuses
    // them at once): comparing inodes alone then removed a live lock and let two runs through.
    const current = readLock(lockPath);
    if (current && current.ino === info.ino && isStale(current, staleMs)) unlinkSync(lockPath);
    return true;
  } finally {
    try {
      unlinkSync(breaker);
    } catch {
      // Already gone.
    }
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `<pid> <start ticks>` (the start time where /proc tells it). */
function lockContent(): string {
  const started = ownStartTicks();
  return `${process.pid}${started === undefined ? '' : ` ${started}`}\n`;
}

/**
 * Creates the lock already holding our pid; returns its inode, or throws EEXIST.
 * Creating it empty and then writing the pid left an empty lock behind whenever a
 * process was killed in between (SIGKILL during a slow open(O_CREAT) under fsync
 * load does land there, test/e2e/config-integrity.test.ts saw it in 1 of ~20
 * kills); with no pid it looks alive until staleMs, so every backupctl for the
 * next 10 s failed with "locked". The pid is written to a private file first and
 * hard-linked into place, which either fails with EEXIST or makes a whole lock.
 * Filesystems without hard links fall back to create-then-write.
 */
function createLock(lockPath: string): number {
  const own = `${lockPath}.${process.pid}-${randomSuffix()}`;
  const fd = openSync(own, 'wx', 0o600);
  const content = lockContent();
  try {
    writeSync(fd, content);
    fsNow = { mtimeMs: fstatSync(fd).mtimeMs, at: Date.now() };
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(own, lockPath);
    // The inode of our own file: the lock path may already name another's lock.
    return statSync(own).ino;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw err;
    const lockFd = openSync(lockPath, 'wx', 0o600);
    try {
      writeSync(lockFd, content);
      return fstatSync(lockFd).ino;
    } finally {
      closeSync(lockFd);
    }
  } finally {
    try {
      unlinkSync(own);
    } catch {
      // Already gone.
    }
  }
}

export interface AcquireOptions extends LockOptions {
  /** The error when the lock cannot be created (no folder, no permission). */
  cannotCreate: (err: Error) => Error;
  /** The error when another process holds it past waitMs. */
  busy: (holder: LockHolder) => Error;
}

/**
 * Takes the lock file `lockPath` (created whole, holding our pid and start time,
 * by hard-linking a private file into place). Waits up to `waitMs` with short
 * jittered sleeps; a lock whose holder is dead (or whose pid now belongs to a
 * later process), or that is older than `staleMs`, is renamed aside, checked to
 * be the very file judged stale, and taken over. Of many processes racing for
 * one lock, exactly one gets it.
 */
export async function acquireFileLock(lockPath: string, opts: AcquireOptions): Promise<HeldLock> {
  // node:crypto costs ~5 ms to load; only a write (which takes the lock) needs it.
  randomBytes ??= process.getBuiltinModule('node:crypto').randomBytes;
  const waitMs = opts.waitMs ?? DEFAULT_WAIT_MS;
  const staleMs = opts.staleMs ?? DEFAULT_STALE_MS;
  const deadline = Date.now() + waitMs;
  let ownIno: number | undefined;
  while (ownIno === undefined) {
    try {
      ownIno = createLock(lockPath);
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw opts.cannotCreate(err as Error);
    }
    let holder: LockInfo | undefined;
    try {
      holder = readLock(lockPath);
    } catch (err) {
      throw opts.cannotCreate(err as Error);
    }
    if (!holder) continue;
    if (isStale(holder, staleMs) && removeStaleLock(lockPath, holder, staleMs)) continue;
    if (Date.now() >= deadline) throw opts.busy({ pid: holder.pid, since: new Date(holder.mtimeMs) });
    await sleep(5 + Math.random() * 20);
  }
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      // Delete the lock only if it is still ours: a process that judged us stale may own it now.
      try {
        if (readLock(lockPath)?.ino === ownIno) unlinkSync(lockPath);
      } catch {
        // Already removed, or unreadable: a later run treats it as stale.
      }
    },
  };
}

/**
 * Runs `fn` while holding `<file>.lock` (see acquireFileLock). The folder must exist.
 */
export async function withFileLock<T>(file: string, fn: () => Promise<T> | T, opts: LockOptions = {}): Promise<T> {
  const lockPath = `${file}.lock`;
  const lock = await acquireFileLock(lockPath, {
    ...opts,
    cannotCreate: (err) => new ConfigError(`cannot create the lock file ${lockPath}: ${err.message}`),
    busy: (holder) =>
      new ConfigError(`the config file ${file} is locked by another backupctl process${holder.pid ? ` (pid ${holder.pid})` : ''}`, [
        `  If no backupctl is running, remove ${lockPath}.`,
      ]),
  });
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}
