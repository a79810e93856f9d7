// The disk bound of SQL restores (issue 45.5): a dump may make data out of
// nothing (`CREATE TABLE t AS SELECT ... generate_series(1,1e8)`, a recursive
// CTE, an event), and filled /tmp at ~200 MB/s until --timeout. One setting for
// every engine, BACKUPCTL_RESTORE_MAX_DISK (a size such as 2GiB, 10 GiB by
// default): the most a scratch database may take, measured while the dump runs
// (an ephemeral local server: the size of its data folder; an --into server:
// the sizes its catalog reports for the scratch database). A local server's
// file system also keeps a free-space floor (diskReserve: 1 GiB, or 5% of a
// small file system), whatever the budget says.
//
// The verdict of a restore stopped by the bound (docs/restore-tests.md):
// not-tested (exit 15), since a backup that needs more room than it was given
// is not proof of a bad backup, unless the dump is plainly hostile: more than
// HOSTILE_GROWTH times the text of the dump read so far on disk (a real dump
// restores to a few times its text with its indexes; a generate_series line
// makes gigabytes from a few bytes). Then the restore failed.
import { statfs, lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { parseSize } from '../config/size.js';
import { diskReserve } from '../pipeline/bounds.js';

export const MAX_DISK_SETTING = 'BACKUPCTL_RESTORE_MAX_DISK';
export const DEFAULT_MAX_DISK = 10 * 1024 ** 3;
/** How often the size is measured while the dump runs. */
export const DISK_POLL_MS = 500;
/** On disk more than this many times the dump's text read so far: the dump makes data of its own (hostile). */
export const HOSTILE_GROWTH = 20;
/** ...and more than this much (a tiny dump with a few indexes is no attack). */
const HOSTILE_FLOOR = 64 * 1024 ** 2;

/**
 * BACKUPCTL_RESTORE_MAX_DISK from the command's environment (never process.env), in bytes.
 * A value that is not a size above 0 is a configuration error (exit 3) naming the variable.
 */
export function maxDiskFromEnv(env: NodeJS.ProcessEnv | undefined): number {
  const raw = env?.[MAX_DISK_SETTING];
  if (raw === undefined || raw.trim() === '') return DEFAULT_MAX_DISK;
  let value: number;
  try {
    value = /^\s*-/.test(raw) ? NaN : parseSize(raw.trim());
  } catch {
    value = NaN;
  }
  if (!Number.isSafeInteger(value) || value <= 0) throw new ConfigError(`${MAX_DISK_SETTING}=${JSON.stringify(raw)} is not a size (such as 2GiB) above 0`);
  return value;
}

function human(n: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} bytes` : `${v.toFixed(v >= 100 ? 0 : 1)} ${units[i]}`;
}

/** Why a restore was stopped; `hostile` decides failed (true) or not-tested (false). */
export interface DiskOver {
  message: string;
  hostile: boolean;
  used: number;
}

/** The judgement of a scratch database of `used` bytes over the budget `max`, after `dumpBytes` of the dump's text. */
export function overBudget(used: number, max: number, dumpBytes: number, where: string): DiskOver {
  const hostile = used > HOSTILE_FLOOR && used > HOSTILE_GROWTH * dumpBytes;
  const message = hostile
    ? `the dump made ${human(used)} of data in ${where} from ${human(dumpBytes)} of text (more than ${HOSTILE_GROWTH} times its size), over ${MAX_DISK_SETTING}=${human(max)}: stopped, a dump that makes data of its own`
    : `the restore needs more disk than ${MAX_DISK_SETTING}=${human(max)} allows (${human(used)} in ${where}): stopped, not tested; raise it (such as ${MAX_DISK_SETTING}=${human(Math.max(2 * max, 1024 ** 3)).replace(' ', '')}) for a backup this large`;
  return { message, hostile, used };
}

/** The free space a local server's file system must keep, and what it has: null when it keeps it. */
export async function belowFloor(dir: string): Promise<DiskOver | null> {
  let st: Awaited<ReturnType<typeof statfs>>;
  try {
    st = await statfs(dir);
  } catch {
    return null;
  }
  const free = st.bavail * st.bsize;
  const keep = diskReserve(st.blocks * st.bsize);
  if (free >= keep) return null;
  return {
    message: `the file system of ${dir} has ${human(free)} free, less than the ${human(keep)} restore-test leaves free: stopped, not tested`,
    hostile: false,
    used: 0,
  };
}

/** The bytes of the files under `dir` (a server's data folder), links not followed; files that vanish on the way count 0. */
export async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += await folderBytes(p);
    else if (e.isFile()) {
      try {
        const s = await lstat(p);
        // Allocated blocks: a sparse file counts what it takes.
        total += Math.min(s.size, s.blocks * 512) || s.size;
      } catch {
        /* gone */
      }
    }
  }
  return total;
}

/**
 * Measures the scratch database every DISK_POLL_MS while the dump runs, and calls onOver once when
 * it is over the budget (or the file system of `floorDir` is below its floor). `dumpBytes()` says
 * how much of the dump's text was read so far (the hostile judgement). stop() ends the watch.
 */
export function watchDisk(o: {
  measure: () => Promise<number | null>;
  max: number;
  where: string;
  dumpBytes: () => number;
  floorDir?: string;
  intervalMs?: number;
  onOver: (over: DiskOver) => void;
}): { stop(): void; check(): Promise<DiskOver | null> } {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let busy = false;
  const check = async (): Promise<DiskOver | null> => {
    if (o.floorDir) {
      const low = await belowFloor(o.floorDir);
      if (low) return low;
    }
    const used = await o.measure().catch(() => null);
    if (used !== null && used > o.max) return overBudget(used, o.max, o.dumpBytes(), o.where);
    return null;
  };
  const tick = async () => {
    if (stopped || busy) return;
    busy = true;
    try {
      const over = await check();
      if (over && !stopped) {
        stopped = true;
        o.onOver(over);
        return;
      }
    } finally {
      busy = false;
    }
    if (!stopped) schedule();
  };
  const schedule = () => {
    timer = setTimeout(() => void tick(), o.intervalMs ?? DISK_POLL_MS);
    timer.unref();
  };
  schedule();
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
    check,
  };
}
