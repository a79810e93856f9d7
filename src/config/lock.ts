// A lock file around the config's read-modify-write. conf has no locking, and
// two `backupctl` processes that both read, change and write the file would
// otherwise lose one of the changes.
import { closeSync, fstatSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { ConfigError } from '../errors.js';

let randomBytes: typeof import('node:crypto').randomBytes | undefined;

/** Eight hex digits for a private file name; withFileLock loads node:crypto first. */
function randomSuffix(): string {
  return randomBytes!(4).toString('hex');
}

export interface LockOptions {
  /** How long to wait for another process to release the lock. */
  waitMs?: number;
  /** A lock older than this is left over by a hung or killed process. */
  staleMs?: number;
}

const DEFAULT_WAIT_MS = 5_000;
const DEFAULT_STALE_MS = 10_000;

interface LockInfo {
  pid: number | undefined;
  ino: number;
  mtimeMs: number;
}

function readLock(lockPath: string): LockInfo | undefined {
  try {
    const st = statSync(lockPath);
    const text = readFileSync(lockPath, 'utf8').trim();
    // An empty file is a lock whose owner has not written its pid yet.
    const pid = /^\d+$/.test(text) ? Number(text) : undefined;
    return { pid, ino: st.ino, mtimeMs: st.mtimeMs };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
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

function isStale(info: LockInfo, staleMs: number): boolean {
  if (Date.now() - info.mtimeMs > staleMs) return true;
  return info.pid !== undefined && info.pid !== process.pid && !processAlive(info.pid);
}

/**
 * Removes a stale lock. Returns true when the lock is gone (so acquiring may be
 * retried at once). The lock is first renamed aside and then checked to be the
 * very file judged stale: if another process replaced it in between, that
 * fresh lock is linked back instead of being deleted.
 */
function removeStaleLock(lockPath: string, info: LockInfo): boolean {
  const aside = `${lockPath}.stale-${process.pid}-${randomSuffix()}`;
  try {
    renameSync(lockPath, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw err;
  }
  let movedIno: number | undefined;
  try {
    movedIno = statSync(aside).ino;
  } catch {
    return true;
  }
  if (movedIno !== info.ino) {
    try {
      linkSync(aside, lockPath);
    } catch {
      // The slot was taken again meanwhile; the newest lock wins.
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // Already gone.
  }
  return movedIno === info.ino;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
  try {
    writeSync(fd, `${process.pid}\n`);
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
      writeSync(lockFd, `${process.pid}\n`);
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

/**
 * Runs `fn` while holding `<file>.lock` (created with O_EXCL, holding our pid).
 * Waits with short jittered sleeps; a lock whose pid is dead or that is older
 * than `staleMs` is taken over. The folder must exist.
 */
export async function withFileLock<T>(file: string, fn: () => Promise<T> | T, opts: LockOptions = {}): Promise<T> {
  // node:crypto costs ~5 ms to load; only a write (which takes the lock) needs it.
  randomBytes ??= process.getBuiltinModule('node:crypto').randomBytes;
  const lockPath = `${file}.lock`;
  const waitMs = opts.waitMs ?? DEFAULT_WAIT_MS;
  const staleMs = opts.staleMs ?? DEFAULT_STALE_MS;
  const deadline = Date.now() + waitMs;
  let ownIno: number | undefined;
  let lastHolder: LockInfo | undefined;
  while (ownIno === undefined) {
    try {
      ownIno = createLock(lockPath);
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') {
        throw new ConfigError(`cannot create the lock file ${lockPath}: ${(err as Error).message}`);
      }
    }
    let holder: LockInfo | undefined;
    try {
      holder = readLock(lockPath);
    } catch (err) {
      throw new ConfigError(`cannot read the lock file ${lockPath}: ${(err as Error).message}`);
    }
    if (!holder) continue;
    lastHolder = holder;
    if (isStale(holder, staleMs) && removeStaleLock(lockPath, holder)) continue;
    if (Date.now() >= deadline) {
      throw new ConfigError(
        `the config file ${file} is locked by another backupctl process${lastHolder.pid ? ` (pid ${lastHolder.pid})` : ''}`,
        [`  If no backupctl is running, remove ${lockPath}.`],
      );
    }
    await sleep(5 + Math.random() * 20);
  }
  try {
    return await fn();
  } finally {
    // Delete the lock only if it is still ours: a process that judged us stale may own it now.
    try {
      if (readLock(lockPath)?.ino === ownIno) unlinkSync(lockPath);
    } catch {
      // Already removed, or unreadable: a later run treats it as stale.
    }
  }
}
