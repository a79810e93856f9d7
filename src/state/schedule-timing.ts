// What this machine has seen of each job's schedule timing, per service (issue 42.5): the service keeps one
// updated_at per job and bumps it for any edit, so a retention-only edit (`apply` lowering a count) looked like a
// schedule change to `report`, which then called the runs before it "unknown". Each record is a job's timing (its
// schedules' cron or frequency, offset, time zone and state, as one string) and `since`: the job's updated_at
// when that timing was first seen. A later updated_at with the same timing is an edit of something else; a
// different timing starts a new record. One JSON file in the state folder, mode 0600, written atomically under
// a lock; an unreadable file is no memory (report then reads updated_at as before), never an error.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';

export const TIMING_FILE = 'schedule-timing.json';

export interface TimingRecord {
  timing: string;
  /** The job's updated_at (epoch ms) when this timing was first seen. */
  since: number;
}

interface TimingData {
  version: 1;
  /** service key (src/state/marks.ts serviceKey) -> job id -> record. */
  services: Record<string, Record<string, TimingRecord>>;
}

async function readTimings(file: string): Promise<TimingData> {
  try {
    const data = JSON.parse(await readFile(file, 'utf8')) as Partial<TimingData>;
    if (data?.version === 1 && typeof data.services === 'object' && data.services !== null && !Array.isArray(data.services)) return { version: 1, services: data.services };
  } catch {
    /* missing or broken: no memory */
  }
  return { version: 1, services: {} };
}

/**
 * When the timing of a job last changed, as far as this machine knows: the `since` of its record when the timing
 * is the one remembered and was seen at or before `updatedAt`; else `updatedAt` itself (a new timing, or none
 * remembered).
 */
export function timingChangedAt(known: TimingRecord | undefined, timing: string, updatedAt: number): number {
  return known && known.timing === timing && known.since <= updatedAt ? known.since : updatedAt;
}

/**
 * The timing memory of one service, whichever backend keeps it (src/state/open.ts picks one): this folder's
 * schedule-timing.json (ScheduleTimings) or a PostgreSQL state the team shares (src/state/pg-timings.ts).
 */
export interface TimingsState {
  readonly service: string;
  get(jobId: string): TimingRecord | undefined;
  changedAt(jobId: string, timing: string, updatedAt: number): number;
  save(): Promise<void>;
}

/** get and changedAt over this run's new records and what the backend remembers: one rule for both backends. */
export abstract class TimingMemory implements TimingsState {
  /** Timings first seen by this run, written by save(). */
  protected readonly changes = new Map<string, TimingRecord>();
  abstract readonly service: string;
  /** The backend's record of the job, before this run. */
  protected abstract remembered(jobId: string): TimingRecord | undefined;
  abstract save(): Promise<void>;

  get(jobId: string): TimingRecord | undefined {
    return this.changes.get(jobId) ?? this.remembered(jobId);
  }

  /** The last change of the job's timing (timingChangedAt), remembering this timing when it is new. */
  changedAt(jobId: string, timing: string, updatedAt: number): number {
    const at = timingChangedAt(this.get(jobId), timing, updatedAt);
    if (at === updatedAt && this.get(jobId)?.timing !== timing) this.changes.set(jobId, { timing, since: updatedAt });
    return at;
  }
}

/** One job's record of one service (what `state migrate` copies). */
export interface TimingRow {
  service: string;
  job_id: string;
  timing: string;
  since: number;
}

/** Two records of one job as one: the same timing keeps its first sighting; else the newer timing. */
export function mergeTiming(known: TimingRecord | undefined, rec: TimingRecord): TimingRecord {
  if (!known) return rec;
  if (known.timing === rec.timing) return { timing: rec.timing, since: Math.min(known.since, rec.since) };
  return known.since > rec.since ? known : rec;
}

/** Every record of every service in a state folder. */
export async function readFolderTimings(dir: string): Promise<TimingRow[]> {
  const data = await readTimings(path.join(dir, TIMING_FILE));
  return Object.entries(data.services).flatMap(([service, jobs]) =>
    Object.entries(jobs ?? {})
      .filter(([, r]) => typeof r?.timing === 'string' && typeof r.since === 'number')
      .map(([job_id, r]) => ({ service, job_id, timing: r.timing, since: r.since })),
  );
}

/** Merges records into a state folder's file under its lock; the number given. */
export async function writeFolderTimings(dir: string, rows: readonly TimingRow[]): Promise<number> {
  const file = path.join(dir, TIMING_FILE);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const [{ withFileLock }, { writeFileAtomic }] = await Promise.all([import('../config/lock.js'), import('../output/output-file.js')]);
  await withFileLock(file, async () => {
    const current = await readTimings(file);
    for (const r of rows) {
      const own = (current.services[r.service] ??= {});
      own[r.job_id] = mergeTiming(own[r.job_id], { timing: r.timing, since: r.since });
    }
    await writeFileAtomic(file, `${JSON.stringify(current, null, 1)}\n`, { mode: 0o600, failure: (err) => err });
  });
  return rows.length;
}

export class ScheduleTimings extends TimingMemory {
  private constructor(
    readonly file: string,
    readonly service: string,
    private data: TimingData,
  ) {
    super();
  }

  static async open(dir: string, service: string): Promise<ScheduleTimings> {
    const file = path.join(dir, TIMING_FILE);
    return new ScheduleTimings(file, service, await readTimings(file));
  }

  protected remembered(jobId: string): TimingRecord | undefined {
    return this.data.services[this.service]?.[jobId];
  }

  /** Re-reads the file under its lock, adds this run's records and renames a new file over it. */
  async save(): Promise<void> {
    if (!this.changes.size) return;
    await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const [{ withFileLock }, { writeFileAtomic }] = await Promise.all([import('../config/lock.js'), import('../output/output-file.js')]);
    await withFileLock(this.file, async () => {
      const current = await readTimings(this.file);
      const own = (current.services[this.service] ??= {});
      for (const [id, rec] of this.changes) {
        const known = own[id];
        // Another run saw this timing earlier: its first sighting stays.
        own[id] = known && known.timing === rec.timing ? { timing: rec.timing, since: Math.min(known.since, rec.since) } : rec;
      }
      await writeFileAtomic(this.file, `${JSON.stringify(current, null, 1)}\n`, { mode: 0o600, failure: (err) => err });
      this.data = current;
      this.changes.clear();
    });
  }
}
