// The memory of each job's schedule timing (src/state/schedule-timing.ts) in a PostgreSQL state the team
// shares: one row per service and job. A save is one transaction of INSERT ... ON CONFLICT: the same timing
// keeps its first sighting (the smaller `since`), a different one replaces it only when seen later.
import { mergeTiming, TimingMemory, type TimingRecord, type TimingRow } from './schedule-timing.js';
import { inTransaction, withState } from './pg.js';

const UPSERT = `INSERT INTO backupctl.schedule_timings (service, job_id, timing, since) VALUES ($1, $2, $3, $4)
  ON CONFLICT (service, job_id) DO UPDATE SET
    since = CASE WHEN backupctl.schedule_timings.timing = EXCLUDED.timing THEN least(backupctl.schedule_timings.since, EXCLUDED.since) ELSE EXCLUDED.since END,
    timing = EXCLUDED.timing
  WHERE backupctl.schedule_timings.timing = EXCLUDED.timing OR backupctl.schedule_timings.since <= EXCLUDED.since`;

export class PgTimings extends TimingMemory {
  private constructor(
    private readonly url: string,
    readonly service: string,
    private readonly known: Map<string, TimingRecord>,
    private readonly timeoutMs?: number,
  ) {
    super();
  }

  static async open(url: string, service: string, timeoutMs?: number): Promise<PgTimings> {
    const r = await withState(url, (c) => c.query<{ job_id: string; timing: string; since: string }>('SELECT job_id, timing, since FROM backupctl.schedule_timings WHERE service = $1', [service]), timeoutMs);
    return new PgTimings(url, service, new Map(r.rows.map((x) => [x.job_id, { timing: x.timing, since: Number(x.since) }])), timeoutMs);
  }

  protected remembered(jobId: string): TimingRecord | undefined {
    return this.known.get(jobId);
  }

  async save(): Promise<void> {
    if (!this.changes.size) return;
    const rows = [...this.changes].map(([job_id, r]) => ({ service: this.service, job_id, ...r }));
    await writePgTimings(this.url, rows, this.timeoutMs);
    for (const r of rows) this.known.set(r.job_id, mergeTiming(this.known.get(r.job_id), r));
    this.changes.clear();
  }
}

export async function readPgTimings(url: string): Promise<TimingRow[]> {
  const r = await withState(url, (c) => c.query<{ service: string; job_id: string; timing: string; since: string }>('SELECT service, job_id, timing, since FROM backupctl.schedule_timings ORDER BY service, job_id'));
  return r.rows.map((x) => ({ ...x, since: Number(x.since) }));
}

export async function writePgTimings(url: string, rows: readonly TimingRow[], timeoutMs?: number): Promise<number> {
  const sorted = [...rows].sort((a, b) => (a.service < b.service ? -1 : a.service > b.service ? 1 : a.job_id < b.job_id ? -1 : a.job_id > b.job_id ? 1 : 0));
  await withState(url, (c) => inTransaction(c, async () => {
    for (const r of sorted) await c.query(UPSERT, [r.service, r.job_id, r.timing, r.since]);
  }), timeoutMs);
  return rows.length;
}
